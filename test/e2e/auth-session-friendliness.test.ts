import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { frozenClock } from '../helpers/sign-in.ts';

/** Logout with only the refresh token; concurrent refreshes from several tabs. */
const clock = frozenClock();
const ref = useTestStack({ REFRESH_REUSE_GRACE_SECONDS: '10' }, { clock });
const api = client(() => ref.stack.url);

const ACCESS_TTL_MS = 900_000;
const cleared = (cookies: string[], name: string) =>
  cookies.some((c) => c.startsWith(`${name}=;`) && c.includes('Max-Age=0'));

describe('logout when the access token has expired', () => {
  it('ends the session with the refresh token in the body alone, and clears both cookies', async () => {
    const user = await signUp(api);
    clock.advance(ACCESS_TTL_MS + 1000);
    expect((await api.get('/auth/me', { token: user.token })).body).toEqual({ detail: 'Invalid or expired token' });
    const res = await api.post('/auth/logout', { refresh_token: user.refresh }, { token: user.token });
    expect(res.status).toBe(204);
    expect(cleared(res.cookies, 'access_token') && cleared(res.cookies, 'refresh_token')).toBe(true);
    expect((await api.post('/auth/token/refresh', { refresh_token: user.refresh })).status).toBe(401);
  });

  it('ends the session with only the refresh cookie (no access token at all)', async () => {
    const user = await signUp(api);
    const res = await api.post('/auth/logout', undefined, { cookie: `refresh_token=${user.refresh}` });
    expect(res.status).toBe(204);
    expect(cleared(res.cookies, 'access_token') && cleared(res.cookies, 'refresh_token')).toBe(true);
    expect((await api.post('/auth/token/refresh', { refresh_token: user.refresh })).status).toBe(401);
    expect((await api.get('/auth/me', { token: user.token })).body).toEqual({ detail: 'Token revoked' });
  });

  it('refuses a logout that proves nothing: no tokens, or a refresh token whose secret is wrong', async () => {
    const user = await signUp(api);
    const none = await api.post('/auth/logout');
    expect([none.status, none.body]).toEqual([401, { detail: 'Not authenticated' }]);
    const forged = `${user.refresh.split('.').slice(0, 2).join('.')}.${'A'.repeat(43)}`;
    const wrong = await api.post('/auth/logout', { refresh_token: forged });
    expect([wrong.status, wrong.body]).toEqual([401, { detail: 'Invalid refresh token' }]);
    expect((await api.get('/auth/me', { token: user.token })).status).toBe(200);
  });
});

describe('concurrent refreshes with one refresh token (several tabs)', () => {
  it('both succeed with the same new pair, 20 times over', async () => {
    const user = await signUp(api);
    let refresh = user.refresh;
    for (let i = 0; i < 20; i++) {
      const [a, b] = await Promise.all([0, 1].map(() => api.post('/auth/token/refresh', { refresh_token: refresh })));
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(b.body).toEqual(a.body);
      expect(a.body.refresh_token).not.toBe(refresh);
      expect((await api.get('/auth/me', { token: a.body.access_token })).status).toBe(200);
      refresh = a.body.refresh_token;
      clock.advance(60_000);
    }
  });

  it('a reuse after the grace window is refused and revokes the session', async () => {
    const user = await signUp(api);
    const first = await api.post('/auth/token/refresh', { refresh_token: user.refresh });
    const again = await api.post('/auth/token/refresh', { refresh_token: user.refresh });
    expect([again.status, again.body]).toEqual([200, first.body]);
    clock.advance(11_000);
    const late = await api.post('/auth/token/refresh', { refresh_token: user.refresh });
    expect([late.status, late.body]).toEqual([401, { detail: 'Invalid refresh token' }]);
    expect((await api.post('/auth/token/refresh', { refresh_token: first.body.refresh_token })).status).toBe(401);
    expect((await api.get('/auth/me', { token: first.body.access_token })).body).toEqual({ detail: 'Token revoked' });
  });
});
