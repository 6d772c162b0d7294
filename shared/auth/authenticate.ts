import { verifyAccessToken } from './tokens.ts';
import {
  apiKeyUsable,
  getAccountAndApiKey,
  getAccountAndSession,
  sessionExpired,
  USER_NOT_FOUND_OR_INACTIVE,
} from './caller.ts';
import { forbidden, isRefusal, unauthenticated } from '#shared/errors';
import { KEY_TOKEN_ACCOUNT_ONLY } from './key-grant.ts';
import { NOT_AUTHENTICATED, type Actor, type AppContext } from '#shared/context';
import type { Account } from '#shared/actor';

/** The caller of a request (see Actor). */
export type Principal = Actor;

/**
 * The access token of a request: the Bearer header first, then the `access_token` cookie. A route that
 * takes the token as query parameter (SPEC's status endpoint for clients that cannot send headers)
 * passes it as `query`: when sent it comes first, so that form answers as when it was the only one.
 */
export function presentedToken(
  authorization: string | undefined,
  cookie: string | undefined,
  query?: string,
): string | undefined {
  if (query) return query;
  if (authorization) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return m?.[1];
  }
  return cookie || undefined;
}

const TOKEN_REVOKED = 'Token revoked';

/**
 * Resolves a token to its caller. The account and the session (or, for a token exchanged for an API
 * key, the key) are read together in one round trip on every request, so a block, a password reset,
 * a revoked session or a revoked, archived or expired key takes effect at once.
 */
export async function authenticate(token: string | undefined, ctx: AppContext): Promise<Principal> {
  if (!token) throw unauthenticated(NOT_AUTHENTICATED);
  const claims = await verifyAccessToken(token, ctx);
  if (claims.grant === 'api_key') {
    const { account, key } = await getAccountAndApiKey(claims.sub, claims.sid);
    const holder = activeHolder(account, claims.ver);
    if (!key || !apiKeyUsable(key, ctx)) throw unauthenticated(TOKEN_REVOKED);
    return {
      account: holder,
      session: null,
      key: { key_id: claims.sid, scopes: key.scopes, project_ids: key.project_ids ?? null },
    };
  }
  const { account, session } = await getAccountAndSession(claims.sub, claims.sid);
  const holder = activeHolder(account, claims.ver);
  if (!session || sessionExpired(session, ctx)) throw unauthenticated(TOKEN_REVOKED);
  return { account: holder, session, key: null };
}

/** The token's account, while it is active and its token version is the token's (a password reset or a block bumps it). */
function activeHolder(account: Account | undefined, version: number): Account {
  if (!account?.is_active) throw unauthenticated(USER_NOT_FOUND_OR_INACTIVE);
  if (account.token_version !== version) throw unauthenticated('Invalid token version');
  return account;
}

/**
 * The caller of a public route that reads an access token when one is sent (accepting an
 * invitation, logging out): none sent is anonymous; a refused one is anonymous when
 * `refusedIsAnonymous` (something else proves the caller), else its refusal stands. Both are a
 * person's acts, so an API key's token is refused like one (403 when it stands).
 */
export async function optionalCaller(
  token: string | undefined,
  ctx: AppContext,
  opts: { refusedIsAnonymous: boolean },
): Promise<Principal | null> {
  if (!token) return null;
  try {
    const principal = await authenticate(token, ctx);
    if (principal.key) throw forbidden(KEY_TOKEN_ACCOUNT_ONLY);
    return principal;
  } catch (err) {
    if (opts.refusedIsAnonymous && isRefusal(err, 'forbidden')) return null;
    if (opts.refusedIsAnonymous && isRefusal(err, 'unauthenticated')) return null;
    throw err;
  }
}

/**
 * Whether a credential a token was made from still authenticates, as `authenticate` would judge its
 * token now: the session (or API key) still there and usable, the account active at `tokenVersion`.
 * For what outlives a request (a live WebSocket connection, checked again at every message).
 */
export async function stillAuthenticated(
  userId: string,
  credential: { session_id: string | null; key_id: string | null; token_version: number },
  ctx: AppContext,
): Promise<boolean> {
  try {
    if (credential.key_id) {
      const { account, key } = await getAccountAndApiKey(userId, credential.key_id);
      activeHolder(account, credential.token_version);
      return !!key && apiKeyUsable(key, ctx);
    }
    if (!credential.session_id) return false;
    const { account, session } = await getAccountAndSession(userId, credential.session_id);
    activeHolder(account, credential.token_version);
    return !!session && !sessionExpired(session, ctx);
  } catch (err) {
    if (isRefusal(err, 'unauthenticated')) return false;
    throw err;
  }
}
