import { verifyAccessToken } from './tokens';
import { getAccountAndSession, sessionExpired, USER_NOT_FOUND_OR_INACTIVE } from './caller';
import { isRefusal, unauthenticated } from '#shared/errors';
import { NOT_AUTHENTICATED, type Actor, type AppContext } from '#shared/context';

/** The caller of a request (see Actor). */
export type Principal = Actor;

/**
 * The access token of a request: the Bearer header first, then the `access_token` cookie. A route that
 * takes the token as query parameter (SPEC's status endpoint for clients that cannot send headers)
 * passes it as `query`: when sent it comes first, so that form answers as when it was the only one.
 */
export function presentedToken(authorization: string | undefined, cookie: string | undefined, query?: string): string | undefined {
  if (query) return query;
  if (authorization) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return m?.[1];
  }
  return cookie || undefined;
}

/**
 * Resolves a token to its caller. The account and the session are read together in one round trip
 * on every request, so a block, a password reset or a revoked session takes effect at once.
 */
export async function authenticate(token: string | undefined, ctx: AppContext): Promise<Principal> {
  if (!token) throw unauthenticated(NOT_AUTHENTICATED);
  const claims = await verifyAccessToken(token, ctx);
  const { account, session } = await getAccountAndSession(claims.sub, claims.sid);
  if (!account || !account.is_active) throw unauthenticated(USER_NOT_FOUND_OR_INACTIVE);
  if (account.token_version !== claims.ver) throw unauthenticated('Invalid token version');
  if (!session || sessionExpired(session, ctx)) throw unauthenticated('Token revoked');
  return { account, session };
}

/**
 * The caller of a public route that reads an access token when one is sent (accepting an
 * invitation, logging out): none sent is anonymous; a refused one is anonymous when
 * `refusedIsAnonymous` (something else proves the caller), else its refusal stands.
 */
export async function optionalCaller(token: string | undefined, ctx: AppContext, opts: { refusedIsAnonymous: boolean }): Promise<Principal | null> {
  if (!token) return null;
  try {
    return await authenticate(token, ctx);
  } catch (err) {
    if (opts.refusedIsAnonymous && isRefusal(err, 'unauthenticated')) return null;
    throw err;
  }
}
