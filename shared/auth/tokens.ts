import { createHash, randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify, errors } from 'jose';
import * as z from 'zod';
import { signingKey } from './signing-key.ts';
import { unauthenticated } from '#shared/errors';
import type { AppContext } from '#shared/context';
import { lazySchema } from '#shared/lazy-schema';

const ALG = 'HS256';

export interface AccessClaims {
  sub: string;
  ver: number;
  /** The session the token belongs to, or (grant `api_key`) the API key it was exchanged for. */
  sid: string;
  /** Absent: a session's token; `api_key`: exchanged for an API key (POST /auth/api-key/token). */
  grant?: 'api_key';
}

export async function issueAccessToken(claims: AccessClaims, ctx: AppContext): Promise<string> {
  const now = Math.floor(ctx.clock.now().getTime() / 1000);
  return new SignJWT({
    ver: claims.ver,
    sid: claims.sid,
    typ: 'access',
    ...(claims.grant ? { grant: claims.grant } : {}),
  })
    .setProtectedHeader({ alg: ALG, typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuer(ctx.config.JWT_ISSUER)
    .setAudience(ctx.config.JWT_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + ctx.config.ACCESS_TOKEN_TTL_SECONDS)
    .sign(await signingKey());
}

const claimsSchema = lazySchema(() =>
  z.object({
    typ: z.literal('access'),
    ver: z.number().int().nonnegative(),
    sid: z.string().min(1),
    sub: z.string(),
    grant: z.literal('api_key').optional(),
  }),
);

/**
 * Tokens this process has already verified, with their expiry. A dashboard sends the same token on
 * every request for 15 minutes; checking its signature once is enough, since revocation, blocking
 * and token versions are enforced by the account and session read on every request anyway.
 */
const verified = new Map<string, AccessClaims & { exp: number }>();
const VERIFIED_CACHE_SIZE = 1000;

/** Verifies an access token; every refusal is one of SPEC "Authentication" rule 3's details. */
export async function verifyAccessToken(token: string, ctx: AppContext): Promise<AccessClaims> {
  const nowSeconds = ctx.clock.now().getTime() / 1000;
  const known = verified.get(token);
  if (known && known.exp > nowSeconds)
    return { sub: known.sub, ver: known.ver, sid: known.sid, ...(known.grant ? { grant: known.grant } : {}) };
  let payload: Record<string, unknown>;
  // Loaded before the try: a key that cannot be loaded now (an outage) is a 503, not a signed-out caller.
  const key = await signingKey();
  try {
    ({ payload } = await jwtVerify(token, key, {
      algorithms: [ALG],
      issuer: ctx.config.JWT_ISSUER,
      audience: ctx.config.JWT_AUDIENCE,
      currentDate: ctx.clock.now(),
      requiredClaims: ['exp'],
    }));
  } catch (err) {
    if (err instanceof errors.JWTClaimValidationFailed && !(err instanceof errors.JWTExpired)) {
      throw unauthenticated('Invalid token claims');
    }
    throw unauthenticated('Invalid or expired token');
  }
  const parsed = claimsSchema().safeParse(payload);
  if (!parsed.success) throw unauthenticated('Invalid token claims');
  if (!z.uuid().safeParse(parsed.data.sub).success) throw unauthenticated('Invalid subject in token');
  const claims: AccessClaims = {
    sub: parsed.data.sub,
    ver: parsed.data.ver,
    sid: parsed.data.sid,
    ...(parsed.data.grant ? { grant: parsed.data.grant } : {}),
  };
  if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value!);
  verified.set(token, { ...claims, exp: payload.exp as number });
  return claims;
}

/** Forgets verified tokens (the signing key or issuer changed, e.g. between test stacks). */
export function forgetVerifiedTokens(): void {
  verified.clear();
}

/** A random secret with 256 bits of entropy and its storage hash (secrets are never stored). */
export function newSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** Refresh tokens are opaque to clients: `<user id>.<session id>.<secret>`; only the secret's hash is kept. */
export const refreshToken = {
  compose: (userId: string, sessionId: string, secret: string) => `${userId}.${sessionId}.${secret}`,
  parse(token: string): { userId: string; sessionId: string; secret: string } | undefined {
    const [userId, sessionId, secret, ...rest] = token.split('.');
    if (rest.length || !userId || !sessionId || !secret) return undefined;
    if (!z.uuid().safeParse(userId).success || !z.uuid().safeParse(sessionId).success) return undefined;
    return { userId, sessionId, secret };
  },
};
