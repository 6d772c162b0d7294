import { keys } from '#db/keys';
import { batchGet, keyId } from '#db/batch-get';
import { isArchived, isDeleted } from '#db/live';
import type { Account, Session } from '#shared/actor';
import type { AppContext } from '#shared/context';

/**
 * The read behind every authenticated request: the caller's account and session (or API key), and when a session or a key
 * has lapsed. Authentication (`authenticate.ts`) and the contexts (identity: refresh, session lists; billing: the API key
 * exchange; they re-export these) use it, so that authentication needs no context.
 */

/** The same refusal for a missing and a blocked account (SPEC), wherever a token or session is checked. */
export const USER_NOT_FOUND_OR_INACTIVE = 'User not found or inactive';

/** The fields of a stored API key that decide whether it may act (the billing context owns the item). */
export interface StoredApiKey {
  key_set: string;
  scopes: string[];
  project_ids?: string[] | null;
  expires_at?: string | null;
  deleted_at?: string | null;
  archived_at?: string | null;
}

/** Only keys of the `api` set are credentials (metrics keys are for a metrics endpoint). */
export const CREDENTIAL_KEY_SET = 'api';

/** Reads an account and one of its items (a session, an API key) in a single round trip (strongly consistent). */
async function getAccountAnd<T>(userId: string, other: { PK: string; SK: string }): Promise<{ account?: Account; item?: T }> {
  const accountKey = keys.account(userId);
  const items = await batchGet([accountKey, other]);
  return { account: items.get(keyId(accountKey)) as Account | undefined, item: items.get(keyId(other)) as T | undefined };
}

/** Reads an account and one of its sessions in a single round trip (strongly consistent). */
export async function getAccountAndSession(userId: string, sessionId: string): Promise<{ account?: Account; session?: Session }> {
  const { account, item } = await getAccountAnd<Session>(userId, keys.session(userId, sessionId));
  return { account, session: item };
}

/** Reads an account and one of its credential API keys in a single round trip: the exchange, and every request of a key's token. */
export async function getAccountAndApiKey(userId: string, apiKeyId: string): Promise<{ account?: Account; key?: StoredApiKey }> {
  const { account, item } = await getAccountAnd<StoredApiKey>(userId, keys.apiKey(userId, CREDENTIAL_KEY_SET, apiKeyId));
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
