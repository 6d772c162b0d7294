import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import { reloadConfig } from '#shared/config';
import { appContext } from '#shared/context';
import { issueAccessToken, refreshToken, verifyAccessToken } from '#auth/tokens';
import { signingKey } from '#auth/signing-key';
import { runTmpDir } from '../helpers/run-tmp.ts';

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(runTmpDir(), 'tokens-'));
  reloadConfig({ LOCAL_DATA_DIR: dataDir });
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

/** A context whose clock is past an access token's 15-minute lifetime. */
const sixteenMinutesLater = () => appContext({ clock: { now: () => new Date(Date.now() + 16 * 60_000) } });

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (e: { detail: string }) => e.detail,
  );

describe('access tokens', () => {
  it('round-trips sub, version and session id', async () => {
    const ctx = appContext();
    const claims = { sub: randomUUID(), ver: 3, sid: randomUUID() };
    expect(await verifyAccessToken(await issueAccessToken(claims, ctx), ctx)).toEqual(claims);
  });

  it('expires after 15 minutes', async () => {
    const ctx = appContext();
    const token = await issueAccessToken({ sub: randomUUID(), ver: 0, sid: 's' }, ctx);
    expect(await refusal(verifyAccessToken(token, sixteenMinutesLater()))).toBe('Invalid or expired token');
  });

  it('refuses an already verified token once it has expired', async () => {
    const ctx = appContext();
    const token = await issueAccessToken({ sub: randomUUID(), ver: 0, sid: 's' }, ctx);
    expect((await verifyAccessToken(token, ctx)).ver).toBe(0);
    expect((await verifyAccessToken(token, ctx)).ver).toBe(0);
    expect(await refusal(verifyAccessToken(token, sixteenMinutesLater()))).toBe('Invalid or expired token');
  });

  it('refuses another audience or issuer as invalid claims', async () => {
    const key = await signingKey();
    const base = () =>
      new SignJWT({ typ: 'access', ver: 0, sid: 's' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(randomUUID())
        .setIssuedAt()
        .setExpirationTime('5m');
    const ctx = appContext();
    expect(
      await refusal(
        verifyAccessToken(await base().setIssuer('someone-else').setAudience(ctx.config.JWT_AUDIENCE).sign(key), ctx),
      ),
    ).toBe('Invalid token claims');
    expect(
      await refusal(
        verifyAccessToken(await base().setIssuer(ctx.config.JWT_ISSUER).setAudience('other-api').sign(key), ctx),
      ),
    ).toBe('Invalid token claims');
  });

  it('refuses a token without the access type, or with a non-uuid subject', async () => {
    const key = await signingKey();
    const ctx = appContext();
    const signed = (claims: Record<string, unknown>, sub: string) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(sub)
        .setIssuer(ctx.config.JWT_ISSUER)
        .setAudience(ctx.config.JWT_AUDIENCE)
        .setExpirationTime('5m')
        .sign(key);
    expect(
      await refusal(verifyAccessToken(await signed({ typ: 'refresh', ver: 0, sid: 's' }, randomUUID()), ctx)),
    ).toBe('Invalid token claims');
    expect(await refusal(verifyAccessToken(await signed({ typ: 'access', ver: 0, sid: 's' }, 'admin'), ctx))).toBe(
      'Invalid subject in token',
    );
  });

  it("refuses the 'none' algorithm and other keys", async () => {
    const ctx = appContext();
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const payload = Buffer.from(
      JSON.stringify({
        sub: randomUUID(),
        typ: 'access',
        ver: 0,
        sid: 's',
        iss: ctx.config.JWT_ISSUER,
        aud: ctx.config.JWT_AUDIENCE,
      }),
    ).toString('base64url');
    expect(await refusal(verifyAccessToken(`${header}.${payload}.`, ctx))).toBe('Invalid or expired token');
    const forged = await new SignJWT({ typ: 'access', ver: 0, sid: 's' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(randomUUID())
      .setIssuer(ctx.config.JWT_ISSUER)
      .setAudience(ctx.config.JWT_AUDIENCE)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('x'.repeat(48)));
    expect(await refusal(verifyAccessToken(forged, ctx))).toBe('Invalid or expired token');
  });
});

describe('refresh token format', () => {
  it('parses what it composes and nothing else', () => {
    const [u, s] = [randomUUID(), randomUUID()];
    expect(refreshToken.parse(refreshToken.compose(u, s, 'secret'))).toEqual({
      userId: u,
      sessionId: s,
      secret: 'secret',
    });
    expect(refreshToken.parse('a.b.c')).toBeUndefined();
    expect(refreshToken.parse(`${u}.${s}`)).toBeUndefined();
  });
});
