import { keys } from '#db/keys';
import { batchGet, keyId } from '#db/batch-get';
import { isArchived, isDeleted } from '#db/live';
import * as z from 'zod';
import { defineEntity } from '#db/entity';
import { accountEntity, sessionEntity } from '#shared/account-entity';
import type { Account, Session } from '#shared/actor';
import type { AppContext } from '#shared/context';

/**
 * The read behind every authenticated request: the caller's account and session (or API key), and when a session or a key
 * has lapsed. Authentication (`authenticate.ts`) and the contexts (identity: refresh, session lists; billing: the API key
 * exchange; they re-export these) use it, so that authentication needs no context.
 */

/** The same refusal for a missing and a blocked account (SPEC), wherever a token or session is checked. */
export const USER_NOT_FOUND_OR_INACTIVE = 'User not found or inactive';

/**
 * The fields of a stored API key that decide whether it may act (the billing context owns the item and its
 * entity; authentication reads these through a partial one, as it imports no context), and what a
 * security-log entry names it by.
 */
const storedApiKeyEntity = defineEntity('api_key', () =>
  z.object({
    key_set: z.string(),
    scopes: z.array(z.string()).default([]),
    project_ids: z.array(z.string()).nullish(),
    expires_at: z.string().nullish(),
    deleted_at: z.string().nullish(),
    archived_at: z.string().nullish(),
    prefix: z.string().optional(),
    name: z.string().optional(),
  }),
);
export type StoredApiKey = z.infer<typeof storedApiKeyEntity.schema>;

/** Only keys of the `api` set are credentials (metrics keys are for a metrics endpoint). */
export const CREDENTIAL_KEY_SET = 'api';

/** Reads an account and one of its items (a session, an API key) in a single round trip (strongly consistent). */
async function getAccountAnd<T>(
  userId: string,
  other: { PK: string; SK: string },
  decode: (raw: object) => T,
): Promise<{ account?: Account; item?: T }> {
  const accountKey = keys.account(userId);
  const items = await batchGet([accountKey, other]);
  const item = items.get(keyId(other));
  return { account: accountEntity.decodeFound(items.get(keyId(accountKey))), item: item && decode(item) };
}

/** Reads an account and one of its sessions in a single round trip (strongly consistent). */
export async function getAccountAndSession(
  userId: string,
  sessionId: string,
): Promise<{ account?: Account; session?: Session }> {
  const { account, item } = await getAccountAnd(userId, keys.session(userId, sessionId), sessionEntity.decode);
  return { account, session: item };
}

/** Reads an account and one of its credential API keys in a single round trip: the exchange, and every request of a key's token. */
export async function getAccountAndApiKey(
  userId: string,
  apiKeyId: string,
): Promise<{ account?: Account; key?: StoredApiKey }> {
  const { account, item } = await getAccountAnd(
    userId,
    keys.apiKey(userId, CREDENTIAL_KEY_SET, apiKeyId),
    storedApiKeyEntity.decode,
  );
  return { account, key: item };
}

export const sessionExpired = (s: Session, ctx: AppContext) => s.expires_at <= ctx.clock.now().toISOString();

/** Why a stored key does not act: the reason its refused exchange is logged under (a missing key counts as revoked). */
export type KeyUnusable = 'key_revoked' | 'key_archived' | 'key_expired';

/**
 * Why a credential key (read from the `api` set: a metrics key is never found here) does not act
 * (null: it does): it must be live (not revoked, not archived) and not expired.
 */
export function whyApiKeyUnusable(k: StoredApiKey | undefined, ctx: AppContext): KeyUnusable | null {
  if (!k || isDeleted(k)) return 'key_revoked';
  if (isArchived(k)) return 'key_archived';
  if (k.expires_at && k.expires_at <= ctx.clock.now().toISOString()) return 'key_expired';
  return null;
}

/** A key acts while it is live and not expired: at the exchange and on each request of its tokens. */
export const apiKeyUsable = (k: StoredApiKey, ctx: AppContext): boolean => whyApiKeyUnusable(k, ctx) === null;
