import { createHash, randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify, errors } from 'jose';
import { z } from 'zod';
import { signingKey } from './signing-key';
import { unauthorized } from '../http/errors';
import type { AppContext } from '../context';

const ALG = 'HS256';

export interface AccessClaims {
  sub: string;
  ver: number;
  sid: string;
}

export async function issueAccessToken(claims: AccessClaims, ctx: AppContext): Promise<string> {
  const now = Math.floor(ctx.now().getTime() / 1000);
  return new SignJWT({ ver: claims.ver, sid: claims.sid, typ: 'access' })
    .setProtectedHeader({ alg: ALG, typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuer(ctx.config.JWT_ISSUER)
    .setAudience(ctx.config.JWT_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + ctx.config.ACCESS_TOKEN_TTL_SECONDS)
    .sign(await signingKey());
}

const claimsSchema = z.object({ typ: z.literal('access'), ver: z.number().int().nonnegative(), sid: z.string().min(1), sub: z.string() });

/** Verifies an access token; every refusal is one of SPEC "Authentication" rule 3's details. */
export async function verifyAccessToken(token: string, ctx: AppContext): Promise<AccessClaims> {
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, await signingKey(), {
      algorithms: [ALG],
      issuer: ctx.config.JWT_ISSUER,
      audience: ctx.config.JWT_AUDIENCE,
      currentDate: ctx.now(),
    }));
  } catch (err) {
    if (err instanceof errors.JWTClaimValidationFailed && !(err instanceof errors.JWTExpired)) {
      throw unauthorized('Invalid token claims');
    }
    throw unauthorized('Invalid or expired token');
  }
  const parsed = claimsSchema.safeParse(payload);
  if (!parsed.success) throw unauthorized('Invalid token claims');
  if (!z.uuid().safeParse(parsed.data.sub).success) throw unauthorized('Invalid subject in token');
  return { sub: parsed.data.sub, ver: parsed.data.ver, sid: parsed.data.sid };
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
