import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, signUp } from '../helpers/http.ts';
import { frozenClock } from '../helpers/sign-in.ts';

const clock = frozenClock();
const ref = useTestStack({}, { clock });
const api = client(() => ref.stack.url);

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const CLI = 'infra-catalog-cli/1.2';

/** Signs the account in again with a chosen User-Agent; answers the new session's tokens. */
async function signInAs(email: string, userAgent: string) {
  const res = await api.post('/auth/login', { email, password: PASSWORD }, { headers: { 'user-agent': userAgent } });
  expect(res.status).toBe(200);
  return { token: res.body.access_token as string, refresh: res.body.refresh_token as string };
}

describe('GET /auth/sessions', () => {
  it('lists each signed-in device with id, device, ip, times and which one is the caller', async () => {
    const user = await signUp(api);
    const firefox = await signInAs(user.email, FIREFOX);
    await signInAs(user.email, CLI);
    const res = await api.get('/auth/sessions', { token: firefox.token });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(3);
    for (const s of res.body) {
      expect(Object.keys(s).sort()).toEqual(['created_at', 'current', 'device', 'id', 'ip', 'last_seen_at']);
      expect(s.ip).toMatch(/127\.0\.0\.1$/);
      expect(new Date(s.created_at).toISOString()).toBe(s.created_at);
    }
    expect(res.body.filter((s: { current: boolean }) => s.current)).toEqual([
      expect.objectContaining({ device: FIREFOX, current: true }),
    ]);
    expect(res.body.map((s: { device: string }) => s.device)).toEqual(expect.arrayContaining([FIREFOX, CLI]));
  });

  it("shows only the caller's own sessions", async () => {
    const a = await signUp(api);
    const b = await signUp(api);
    const mine = (await api.get('/auth/sessions', { token: a.token })).body;
    const theirs = (await api.get('/auth/sessions', { token: b.token })).body;
    expect(mine).toHaveLength(1);
    expect(theirs).toHaveLength(1);
    expect(mine[0].id).not.toBe(theirs[0].id);
  });

  it('moves last_seen_at when the session refreshes', async () => {
    const user = await signUp(api);
    const [before] = (await api.get('/auth/sessions', { token: user.token })).body;
    clock.advance(60_000);
    const refreshed = await api.post('/auth/token/refresh', { refresh_token: user.refresh });
    const [after] = (await api.get('/auth/sessions', { token: refreshed.body.access_token })).body;
    expect(after.id).toBe(before.id);
    expect(after.created_at).toBe(before.created_at);
    expect(after.last_seen_at).toBe(clock.now().toISOString());
    expect(after.last_seen_at > before.last_seen_at).toBe(true);
  });
});

describe('DELETE /auth/sessions/{session_id}', () => {
  it("revokes that session: 204, its access token gets 'Token revoked' at once and its refresh token 401", async () => {
    const user = await signUp(api);
    const other = await signInAs(user.email, CLI);
    const target = (await api.get('/auth/sessions', { token: user.token })).body.find(
      (s: { current: boolean }) => !s.current,
    );
    const res = await api.delete(`/auth/sessions/${target.id}`, undefined, { token: user.token });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const refused = await api.get('/auth/me', { token: other.token });
    expect([refused.status, refused.body]).toEqual([401, { detail: 'Token revoked' }]);
    expect((await api.post('/auth/token/refresh', { refresh_token: other.refresh })).status).toBe(401);
    expect((await api.get('/auth/me', { token: user.token })).status).toBe(200);
    expect((await api.get('/auth/sessions', { token: user.token })).body).toHaveLength(1);
  });

  it("answers 404 'Session not found' for an unknown id and for another account's session", async () => {
    const a = await signUp(api);
    const b = await signUp(api);
    const [bSession] = (await api.get('/auth/sessions', { token: b.token })).body;
    const foreign = await api.delete(`/auth/sessions/${bSession.id}`, undefined, { token: a.token });
    const unknown = await api.delete('/auth/sessions/00000000-0000-4000-8000-000000000000', undefined, {
      token: a.token,
    });
    expect([foreign.status, foreign.text]).toEqual([404, '{"detail":"Session not found"}']);
    expect(unknown.text).toBe(foreign.text);
    expect((await api.get('/auth/me', { token: b.token })).status).toBe(200);
  });

  it('can end the calling session itself', async () => {
    const user = await signUp(api);
    const [me] = (await api.get('/auth/sessions', { token: user.token })).body;
    expect((await api.delete(`/auth/sessions/${me.id}`, undefined, { token: user.token })).status).toBe(204);
    expect((await api.get('/auth/me', { token: user.token })).body).toEqual({ detail: 'Token revoked' });
  });

  it('answers 422 for a malformed session id', async () => {
    const user = await signUp(api);
    const res = await api.delete('/auth/sessions/nope', undefined, { token: user.token });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['path', 'session_id']);
  });
});

describe('DELETE /auth/sessions', () => {
  it('revokes every other session and says how many', async () => {
    const user = await signUp(api);
    const others = [
      await signInAs(user.email, FIREFOX),
      await signInAs(user.email, CLI),
      await signInAs(user.email, CLI),
    ];
    const res = await api.delete('/auth/sessions', undefined, { token: user.token });
    expect([res.status, res.body]).toEqual([200, { revoked: 3 }]);
    for (const o of others)
      expect((await api.get('/auth/me', { token: o.token })).body).toEqual({ detail: 'Token revoked' });
    const left = (await api.get('/auth/sessions', { token: user.token })).body;
    expect(left).toEqual([expect.objectContaining({ current: true })]);
    expect((await api.delete('/auth/sessions', undefined, { token: user.token })).body).toEqual({ revoked: 0 });
  });
});
