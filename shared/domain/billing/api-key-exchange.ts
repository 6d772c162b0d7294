import * as z from 'zod';
import { keys } from '#db/keys';
import { getItem } from '#db/items';
import { setFieldsStep } from '#db/live';
import { transact } from '#db/transact';
import { issueAccessToken, sha256 } from '#auth/tokens';
import { whyApiKeyUnusable, getAccountAndApiKey, CREDENTIAL_KEY_SET, type StoredApiKey } from '#auth/caller';
import { unauthenticated } from '#shared/errors';
import type { AppContext } from '#shared/context';
import { perAddressPerMinute, recordSecurityEvent, securityLogStep, type RefusalReason } from '#domain/identity';
import { lazySchema } from '#shared/lazy-schema';

/**
 * The API key exchange (`POST /auth/api-key/token`): a machine's credential, like OAuth's
 * client credentials grant. An `api` key that is live and not expired gives a short-lived access
 * token (the ordinary JWT, same lifetime, no refresh token: the holder exchanges again) whose every
 * request re-reads the key (authenticate.ts), so revoking the key ends its tokens at once. What the
 * token may reach is `#auth/key-grant`. See docs/decisions/0139-api-keys-as-a-ci-credential-the-exchange-one-refusal-lookup.md.
 */

/** The one refusal of an unknown, revoked, archived, expired or metrics key, and of a blocked account: no oracle. */
export const INVALID_API_KEY = 'Invalid or expired API key';

export const exchangeApiKeyBody = lazySchema(() => z.object({ api_key: z.string().min(1).max(200) }));

export const keyTokenOut = lazySchema(() =>
  z.object({
    access_token: z.string(),
    token_type: z.literal('bearer'),
    /** Seconds until the token expires. */
    expires_in: z.number().int(),
    scopes: z.array(z.string()),
    project_ids: z.array(z.string()).nullable(),
  }),
);
export type KeyToken = z.infer<ReturnType<typeof keyTokenOut>>;

interface KeyLookup {
  user_id: string;
  key_set: string;
  key_id: string;
}

/** The key's non-secret facts for a security-log entry. */
const keyDetails = (keyId: string, key: StoredApiKey | undefined) => {
  return { key_id: keyId, prefix: key?.prefix ?? null, name: key?.name ?? null };
};

/**
 * Exchanges a key for an access token. The source address's rate limit is sign-in's (SPEC "Rate
 * limits"; a 256-bit key needs no lockout). Two reads (the lookup by hash, then account and key in
 * one BatchGet), then one transaction: `last_used_at` on the key (while it is live) and the account's
 * security-log entry. A known key that is refused (revoked, archived, expired, a metrics key, a blocked
 * account) is logged on its account, with why, so a leaked key replayed shows up; the answer stays the
 * one 401. An unknown key has no account to log on.
 */
export async function exchangeApiKey(ctx: AppContext, input: { api_key: string; sourceIp: string }): Promise<KeyToken> {
  await perAddressPerMinute('api-key-token', input.sourceIp, ctx.config.LOGIN_RATE_LIMIT_PER_MINUTE, ctx);
  const refused = unauthenticated(INVALID_API_KEY);
  const lookup = await getItem<KeyLookup>(keys.apiKeyHash(sha256(input.api_key)));
  if (!lookup) throw refused;
  // A metrics key's lookup names no credential: its account is read all the same, its key is not there.
  const { account, key } = await getAccountAndApiKey(lookup.user_id, lookup.key_id);
  if (!account) throw refused;
  const why: RefusalReason | null = !account.is_active
    ? 'account_blocked'
    : lookup.key_set !== CREDENTIAL_KEY_SET
      ? 'metrics_key'
      : whyApiKeyUnusable(key, ctx);
  if (why || !key) {
    // The holder of the key is not proven to be anyone: it may be whoever found a leaked key.
    await recordSecurityEvent(
      account.id,
      { event: 'api_key.exchange_refused', reason: why, actor: 'anonymous', details: keyDetails(lookup.key_id, key) },
      ctx,
    );
    throw refused;
  }
  await transact([
    setFieldsStep(
      keys.apiKey(account.id, CREDENTIAL_KEY_SET, lookup.key_id),
      { last_used_at: ctx.clock.now().toISOString() },
      refused,
    ),
    // The holder of the key counts as the account itself, like the holder of a refresh token.
    securityLogStep(
      account.id,
      {
        event: 'api_key.exchanged',
        actor: 'self',
        details: { ...keyDetails(lookup.key_id, key), scopes: key.scopes.join(' ') },
      },
      ctx,
    ),
  ]);
  const access_token = await issueAccessToken(
    { sub: account.id, ver: account.token_version, sid: lookup.key_id, grant: 'api_key' },
    ctx,
  );
  return {
    access_token,
    token_type: 'bearer',
    expires_in: ctx.config.ACCESS_TOKEN_TTL_SECONDS,
    scopes: key.scopes,
    project_ids: key.project_ids ?? null,
  };
}
