import { beforeAll, describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, uniqueEmail } from '../helpers/http.ts';
import { enrolAuthenticator, frozenClock, login, postFrom, requestFrom, totpCode } from '../helpers/sign-in.ts';
import { linkFrom, readOutbox } from '../helpers/outbox.ts';
import { setPlan } from '../helpers/plans.ts';

// The account's security log (GET /auth/me/security-log; staff: GET /admin/users/{user_id}/security-log).
const STAFF_EMAIL = 'root@seclog.example.com';
const STAFF_PASSWORD = 'staff passphrase 1';
const clock = frozenClock();
const ref = useTestStack(
  {
    APP_BASE_URL: 'https://catalog.example.test',
    BOOTSTRAP_ADMIN_EMAIL: STAFF_EMAIL,
    BOOTSTRAP_ADMIN_PASSWORD: STAFF_PASSWORD,
  },
  { clock },
);
const api = client(() => ref.stack.url);
const STEP = 30_000;
const ENTRY_FIELDS = [
  'actor',
  'actor_id',
  'at',
  'details',
  'event',
  'id',
  'reason',
  'request_id',
  'source_ip',
  'user_agent',
];

/** Each action a second after the one before, so entries have distinct times (the clock is the test's). */
const tick = () => clock.advance(1000);
const log = async (token: string, query = '') => {
  const res = await api.get(`/auth/me/security-log${query}`, { token });
  expect(res.status).toBe(200);
  return res;
};
const events = async (token: string) =>
  (await log(token)).body.map((e: { event: string; reason: string | null }) =>
    e.reason ? `${e.event}:${e.reason}` : e.event,
  );
const signInFrom = (address: string, device: string, email: string, password: string, totp_code?: string) =>
  postFrom(
    address,
    ref.stack.url,
    '/auth/login',
    { email, password, ...(totp_code ? { totp_code } : {}) },
    { 'user-agent': device },
  );
/** Registers and signs in a second later (so `account.created` is older than the first sign-in). */
async function signUp(_api: typeof api, email = uniqueEmail()) {
  const reg = await api.post('/auth/register', { email, password: PASSWORD });
  expect(reg.status).toBe(201);
  tick();
  const res = await login(api, email, PASSWORD);
  expect(res.status).toBe(200);
  return {
    id: reg.body.id as string,
    email,
    token: res.body.access_token as string,
    refresh: res.body.refresh_token as string,
  };
}
const mailsTo = async (to: string) => {
  await ref.stack.queues.drain();
  return readOutbox(ref.stack.dataDir, { to });
};

let staff: { id: string; token: string };
beforeAll(async () => {
  const res = await login(api, STAFF_EMAIL, STAFF_PASSWORD);
  staff = { id: (await api.get('/auth/me', { token: res.body.access_token })).body.id, token: res.body.access_token };
});

describe('sign-ins', () => {
  it('shows a refused and a successful sign-in from two source addresses, each with its device', async () => {
    const email = uniqueEmail('seclog');
    expect((await api.post('/auth/register', { email, password: PASSWORD })).status).toBe(201);
    tick();
    const refused = await signInFrom('127.0.0.2', 'Firefox/128 (laptop)', email, 'not the password');
    expect([refused.status, refused.body]).toEqual([401, { detail: 'Invalid credentials' }]);
    tick();
    const signedIn = await signInFrom('127.0.0.3', 'Safari/17 (phone)', email, PASSWORD);
    expect(signedIn.status).toBe(200);

    const res = await log(signedIn.body.access_token);
    const me = (await api.get('/auth/me', { token: signedIn.body.access_token })).body;
    expect(res.body).toHaveLength(3);
    const [success, refusal, creation] = res.body;
    expect(creation).toMatchObject({
      event: 'account.created',
      actor: 'self',
      actor_id: me.id,
      details: { account_type: 'customer' },
    });
    expect(Object.keys(success).sort()).toEqual(ENTRY_FIELDS);
    expect(success).toMatchObject({
      event: 'sign_in.succeeded',
      reason: null,
      source_ip: '127.0.0.3',
      user_agent: 'Safari/17 (phone)',
      actor: 'self',
      actor_id: me.id,
      details: { second_factor: null },
    });
    expect(refusal).toMatchObject({
      event: 'sign_in.refused',
      reason: 'invalid_credentials',
      source_ip: '127.0.0.2',
      user_agent: 'Firefox/128 (laptop)',
      actor: 'anonymous',
      actor_id: null,
    });
    expect(success.request_id).toEqual(expect.any(String));
    expect(success.request_id).not.toBe(refusal.request_id);
    expect(Date.parse(success.at)).toBeGreaterThan(Date.parse(refusal.at));
    expect(res.headers.get('x-next-cursor')).toBeNull();
    // no password, token or hash in any entry
    for (const secret of [
      PASSWORD,
      'not the password',
      signedIn.body.access_token,
      signedIn.body.refresh_token,
      'argon',
      '$2',
    ])
      expect(res.text).not.toContain(secret);
  });

  it('writes nothing for an address without an account: the account registered later starts with an empty log', async () => {
    const email = uniqueEmail('later');
    expect((await login(api, email, 'guessing')).status).toBe(401);
    const user = await signUp(api, email);
    expect(await events(user.token)).toEqual(['sign_in.succeeded', 'account.created']);
  });

  it('logs the lockout and the refusals under it', async () => {
    const user = await signUp(api);
    for (let i = 0; i < 10; i++) {
      tick();
      await login(api, user.email, 'wrong guess');
    }
    tick();
    const underLock = await login(api, user.email, PASSWORD);
    expect(underLock.status).toBe(423);
    const entries = (await log(user.token)).body as {
      event: string;
      reason: string | null;
      details: Record<string, unknown>;
    }[];
    expect(entries[0]).toMatchObject({ event: 'sign_in.refused', reason: 'locked' });
    // the tenth failure is refused (423) and starts the lock, in one request
    const tenth = entries
      .slice(1, 3)
      .map((e) => `${e.event}:${e.reason}`)
      .sort();
    expect(tenth).toEqual(['lockout.started:null', 'sign_in.refused:invalid_credentials']);
    const started = entries.find((e) => e.event === 'lockout.started')!;
    expect(started.details.locked_until).toBe(underLock.body.locked_until);
    expect(entries.filter((e) => e.reason === 'invalid_credentials')).toHaveLength(10);
    expect(entries.slice(-2).map((e) => e.event)).toEqual(['sign_in.succeeded', 'account.created']);
  });
});

describe('second factor and recovery codes', () => {
  it('logs authenticators added and removed, recovery codes regenerated, and second-factor refusals, without any secret or code', async () => {
    const user = await signUp(api);
    tick();
    const secret = await enrolAuthenticator(api, user.token, clock.now(), 'Work phone');
    const [device] = (await api.get('/auth/totp/devices', { token: user.token })).body;
    tick();
    expect((await login(api, user.email, PASSWORD)).body).toEqual({ detail: 'TOTP code required' });
    tick();
    expect((await login(api, user.email, PASSWORD, '000000')).status).toBe(401);
    clock.advance(STEP);
    const withCode = await login(api, user.email, PASSWORD, await totpCode(secret, clock.now()));
    expect(withCode.status).toBe(200);
    clock.advance(STEP);
    const regenerated = await api.post(
      '/auth/totp/recovery/regenerate',
      { current_password: PASSWORD, totp_code: await totpCode(secret, clock.now()) },
      { token: user.token },
    );
    expect(regenerated.status).toBe(200);
    const codes: string[] = regenerated.body.codes;
    tick();
    expect((await login(api, user.email, PASSWORD, codes[0])).status).toBe(200);
    tick();
    const removed = await api.delete(
      `/auth/totp/devices/${device.id}`,
      { current_password: PASSWORD, totp_code: codes[1] },
      { token: user.token },
    );
    expect(removed.status).toBe(204);

    const res = await log(user.token);
    expect(
      res.body.map((e: { event: string; reason: string | null }) => (e.reason ? `${e.event}:${e.reason}` : e.event)),
    ).toEqual([
      'authenticator.removed',
      'sign_in.succeeded',
      'recovery_codes.regenerated',
      'sign_in.succeeded',
      'sign_in.refused:totp_invalid',
      'sign_in.refused:totp_required',
      'authenticator.added',
      'sign_in.succeeded',
      'account.created',
    ]);
    const [removal, recoverySignIn, regeneration, totpSignIn, , , added] = res.body;
    expect(added).toMatchObject({
      actor: 'self',
      actor_id: user.id,
      details: { device_id: device.id, device_name: 'Work phone' },
    });
    expect(removal).toMatchObject({ actor: 'self', details: { device_id: device.id } });
    expect(regeneration.details).toEqual({ count: 10 });
    expect(totpSignIn.details).toEqual({ second_factor: 'totp' });
    expect(recoverySignIn.details).toEqual({ second_factor: 'recovery_code' });
    for (const s of [secret, ...codes, PASSWORD, '000000', user.token, user.refresh]) expect(res.text).not.toContain(s);
  });

  it('logs a refused re-check of the password (counted like a sign-in) with the caller as actor', async () => {
    const user = await signUp(api);
    tick();
    const res = await api.post('/auth/totp/recovery/regenerate', { current_password: 'wrong' }, { token: user.token });
    expect(res.body).toEqual({ detail: 'Invalid password' });
    const [entry] = (await log(user.token)).body;
    expect(entry).toMatchObject({
      event: 'reauth.refused',
      reason: 'invalid_password',
      actor: 'self',
      actor_id: user.id,
    });
  });
});

describe('password reset and e-mail change', () => {
  it('logs the request (link sent) and the completion', async () => {
    const user = await signUp(api);
    tick();
    expect(
      (
        await postFrom(
          '127.0.0.4',
          ref.stack.url,
          '/auth/password/reset',
          { email: user.email },
          { 'user-agent': 'ResetBrowser/1' },
        )
      ).status,
    ).toBe(200);
    const [mail] = await mailsTo(user.email);
    const token = linkFrom(mail, '/reset-password').searchParams.get('token')!;
    tick();
    expect(
      (await api.post('/auth/password/reset/confirm', { token, new_password: 'a brand new passphrase' })).status,
    ).toBe(200);
    tick();
    const fresh = await login(api, user.email, 'a brand new passphrase');
    const res = await log(fresh.body.access_token);
    expect(res.body.map((e: { event: string }) => e.event)).toEqual([
      'sign_in.succeeded',
      'password_reset.completed',
      'password_reset.requested',
      'sign_in.succeeded',
      'account.created',
    ]);
    expect(res.body[2]).toMatchObject({
      source_ip: '127.0.0.4',
      user_agent: 'ResetBrowser/1',
      actor: 'anonymous',
      details: { link_sent: true },
    });
    expect(res.body[1]).toMatchObject({ actor: 'self', details: { all_sessions_revoked: true } });
    for (const s of [token, 'a brand new passphrase', PASSWORD]) expect(res.text).not.toContain(s);
  });

  it('logs a reset asked without the second factor, though the requester gets the same answer', async () => {
    const user = await signUp(api);
    await enrolAuthenticator(api, user.token, clock.now());
    tick();
    expect((await api.post('/auth/password/reset', { email: user.email })).body).toEqual({ status: 'ok' });
    const [entry] = (await log(user.token)).body;
    expect(entry).toMatchObject({
      event: 'password_reset.requested',
      reason: 'totp_required',
      details: { link_sent: false },
    });
  });

  it('logs an e-mail change asked and confirmed', async () => {
    const user = await signUp(api);
    const next = uniqueEmail('moved');
    tick();
    expect(
      (await api.patch('/auth/me', { email: next, current_password: PASSWORD }, { token: user.token })).status,
    ).toBe(200);
    const [confirmation] = await mailsTo(next);
    tick();
    expect(
      (
        await api.post('/auth/email/confirm', {
          token: linkFrom(confirmation, '/confirm-email').searchParams.get('token'),
        })
      ).status,
    ).toBe(200);
    const res = await log(user.token);
    expect(res.body.slice(0, 2)).toMatchObject([
      { event: 'email.changed', actor: 'self', details: { old_email: user.email, new_email: next } },
      { event: 'email_change.requested', actor: 'self', details: { new_email: next } },
    ]);
  });
});

describe('sessions', () => {
  it('logs logout, one session revoked and every other session revoked', async () => {
    const user = await signUp(api);
    const second = await login(api, user.email, PASSWORD);
    const third = await login(api, user.email, PASSWORD);
    const fourth = await login(api, user.email, PASSWORD);
    const sessions = (await api.get('/auth/sessions', { token: user.token })).body as {
      id: string;
      current: boolean;
    }[];
    tick();
    expect((await api.post('/auth/logout', undefined, { token: second.body.access_token })).status).toBe(204);
    const mine = sessions.find((s) => s.current)!.id;
    const others = (await api.get('/auth/sessions', { token: user.token })).body.filter(
      (s: { current: boolean }) => !s.current,
    );
    tick();
    expect((await api.delete(`/auth/sessions/${others[0].id}`, undefined, { token: user.token })).status).toBe(204);
    tick();
    expect((await api.delete('/auth/sessions', undefined, { token: user.token })).body).toEqual({ revoked: 1 });
    expect((await api.get('/auth/me', { token: third.body.access_token })).status).toBe(401);
    expect((await api.get('/auth/me', { token: fourth.body.access_token })).status).toBe(401);

    const res = await log(user.token);
    const [all, one, out] = res.body;
    expect(all).toMatchObject({
      event: 'sessions.revoked',
      actor: 'self',
      details: { revoked: 1, kept_session_id: mine },
    });
    expect(one).toMatchObject({ event: 'session.revoked', actor: 'self', details: { session_id: others[0].id } });
    expect(out).toMatchObject({ event: 'session.signed_out', actor: 'self' });
    expect(sessions.map((s) => s.id)).toContain(out.details.session_id);
    for (const s of [second.body.refresh_token, third.body.refresh_token, fourth.body.refresh_token])
      expect(res.text).not.toContain(s);
  });
});

describe('races', () => {
  it('logs one revocation when the same session is revoked by many requests at once, 10 times over', async () => {
    for (let round = 0; round < 10; round++) {
      const user = await signUp(api);
      const other = await login(api, user.email, PASSWORD);
      const sessionId = (await api.get('/auth/sessions', { token: other.body.access_token })).body.find(
        (s: { current: boolean }) => s.current,
      ).id;
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => api.delete(`/auth/sessions/${sessionId}`, undefined, { token: user.token })),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([204, 404, 404, 404, 404]);
      expect((await events(user.token)).filter((e: string) => e === 'session.revoked')).toHaveLength(1);
    }
  });

  it('logs one lockout when the failures that reach the threshold arrive at once, 5 times over', async () => {
    for (let round = 0; round < 5; round++) {
      const user = await signUp(api);
      const answers = await Promise.all(Array.from({ length: 14 }, () => login(api, user.email, 'wrong guess')));
      expect(answers.filter((a) => a.status === 423).length).toBeGreaterThanOrEqual(5);
      const logged = await events(user.token);
      expect(logged.filter((e: string) => e === 'lockout.started')).toHaveLength(1);
      expect(logged.filter((e: string) => e.startsWith('sign_in.refused'))).toHaveLength(14);
    }
  });

  it('logs a refresh token used again after its rotation (a copied token) as its session revoked', async () => {
    const user = await signUp(api);
    const rotated = await api.post('/auth/token/refresh', { refresh_token: user.refresh });
    expect(rotated.status).toBe(200);
    clock.advance(60_000); // past the grace window
    expect((await api.post('/auth/token/refresh', { refresh_token: user.refresh })).status).toBe(401);
    tick();
    const other = await login(api, user.email, PASSWORD);
    const [, revoked] = (await log(other.body.access_token)).body;
    expect(revoked).toMatchObject({
      event: 'session.revoked',
      actor: 'anonymous',
      details: { cause: 'refresh_token_reuse' },
    });
    expect(JSON.stringify(revoked)).not.toContain(user.refresh);
  });
});

describe('API keys', () => {
  it("logs a known key's refused exchange with why (revoked, archived, expired, metrics, blocked account); the caller gets the one 401; an unknown key logs nothing", async () => {
    const user = await signUp(api);
    await setPlan(user.id, 'Team');
    const newKey = async (name: string, body: Record<string, unknown> = {}, path = '/me/api-keys') => {
      const res = await api.post(path, { name, ...body }, { token: user.token });
      expect(res.status, res.text).toBe(201);
      return res.body as { id: string; key: string; prefix: string };
    };
    const revoked = await newKey('revoked');
    const archived = await newKey('archived');
    const expiring = await newKey('expiring', { expires_at: new Date(clock.now().getTime() + 60_000).toISOString() });
    const metrics = await newKey('metrics', {}, '/me/metrics-api-keys');
    const live = await newKey('live');
    expect((await api.delete(`/me/api-keys/${revoked.id}`, undefined, { token: user.token })).status).toBe(204);
    expect((await api.post('/me/mark-archived', { api_keys: [archived.id] }, { token: user.token })).status).toBe(200);
    clock.advance(61_000);
    const exchange = (key: string) =>
      postFrom(
        '127.0.0.4',
        ref.stack.url,
        '/auth/api-key/token',
        { api_key: key },
        { 'user-agent': 'curl/8 (leaked)' },
      );
    const before = await events(user.token);
    for (const key of [`ick_${'B'.repeat(43)}`, revoked.key, archived.key, expiring.key, metrics.key]) {
      tick();
      expect(await exchange(key)).toMatchObject({ status: 401, body: { detail: 'Invalid or expired API key' } });
    }
    const res = await log(user.token);
    const after = await events(user.token);
    expect(after.slice(0, 4)).toEqual(
      ['metrics_key', 'key_expired', 'key_archived', 'key_revoked'].map((r) => `api_key.exchange_refused:${r}`),
    );
    expect(after.slice(4)).toEqual(before);
    const [ofMetrics, ofExpired, ofArchived, ofRevoked] = res.body;
    expect(ofRevoked).toMatchObject({
      source_ip: '127.0.0.4',
      user_agent: 'curl/8 (leaked)',
      actor: 'anonymous',
      actor_id: null,
      details: { key_id: revoked.id, name: 'revoked', prefix: revoked.prefix },
    });
    expect(ofArchived.details).toMatchObject({ key_id: archived.id, name: 'archived' });
    expect(ofExpired.details).toMatchObject({ key_id: expiring.id, name: 'expiring' });
    expect(ofMetrics.details).toMatchObject({ key_id: metrics.id });
    for (const k of [revoked, archived, expiring, metrics]) expect(res.text).not.toContain(k.key);

    tick();
    expect((await api.patch(`/admin/users/${user.id}`, { is_active: false }, { token: staff.token })).status).toBe(200);
    tick();
    expect(await exchange(live.key)).toMatchObject({ status: 401, body: { detail: 'Invalid or expired API key' } });
    const staffView = (await api.get(`/admin/users/${user.id}/security-log`, { token: staff.token })).body;
    expect(staffView[0]).toMatchObject({
      event: 'api_key.exchange_refused',
      reason: 'account_blocked',
      actor: 'anonymous',
      details: { key_id: live.id, name: 'live' },
    });
  });
});

describe('who can read which log', () => {
  it("has no route to another account's log but the staff one: a caller reads only its own, whatever it sends", async () => {
    const [a, b] = [await signUp(api), await signUp(api)];
    const own = (await log(a.token)).body;
    expect((await log(a.token, `?user_id=${b.id}`)).body).toEqual(own);
    expect(own.every((e: { actor_id: string }) => e.actor_id === a.id)).toBe(true);
    const refused = await api.get(`/admin/users/${b.id}/security-log`, { token: a.token });
    expect([refused.status, refused.body]).toEqual([403, { detail: 'Staff privileges required' }]);
    expect((await api.get('/auth/me/security-log')).status).toBe(401);
  });

  it("lets staff read any account's log (404 for an unknown account), and logs staff's own actions on it with the staff id", async () => {
    const user = await signUp(api);
    tick();
    expect((await api.patch(`/admin/users/${user.id}`, { is_active: false }, { token: staff.token })).status).toBe(200);
    const res = await api.get(`/admin/users/${user.id}/security-log`, { token: staff.token });
    expect(res.status).toBe(200);
    expect(res.body.map((e: { event: string }) => e.event)).toEqual([
      'account.updated_by_staff',
      'sign_in.succeeded',
      'account.created',
    ]);
    expect(res.body[0]).toMatchObject({
      actor: 'staff',
      actor_id: staff.id,
      details: { is_active: false, sessions_revoked: true },
    });
    // the blocked account's token is dead at once; its log is still there for staff
    expect((await api.get('/auth/me/security-log', { token: user.token })).status).toBe(401);
    const made = await api.post('/users', { email: uniqueEmail('made'), password: PASSWORD }, { token: staff.token });
    const madeLog = (await api.get(`/admin/users/${made.body.id}/security-log`, { token: staff.token })).body;
    expect(madeLog).toMatchObject([{ event: 'account.created', actor: 'staff', actor_id: staff.id }]);
    const unknown = await api.get('/admin/users/00000000-0000-4000-8000-000000000000/security-log', {
      token: staff.token,
    });
    expect([unknown.status, unknown.body]).toEqual([404, { detail: 'User not found' }]);
  });
});

describe('paging', () => {
  it('pages newest first with the X-Next-Cursor header passed back as `cursor`; a tampered or foreign cursor is a 422', async () => {
    const user = await signUp(api);
    for (let i = 0; i < 4; i++) {
      tick();
      await requestFrom(`127.0.0.${10 + i}`, ref.stack.url, 'POST', '/auth/login', {
        email: user.email,
        password: 'wrong',
      });
    }
    const full = (await log(user.token)).body;
    expect(full).toHaveLength(6);
    const pages: unknown[][] = [];
    let query = '?limit=2';
    for (;;) {
      const res = await log(user.token, query);
      pages.push(res.body);
      const next = res.headers.get('x-next-cursor');
      if (!next) break;
      query = `?limit=2&cursor=${encodeURIComponent(next)}`;
    }
    expect(pages.map((p) => p.length)).toEqual([2, 2, 2]);
    expect(pages.flat()).toEqual(full);
    expect(full.slice(0, 4).map((e: { source_ip: string }) => e.source_ip)).toEqual([
      '127.0.0.13',
      '127.0.0.12',
      '127.0.0.11',
      '127.0.0.10',
    ]);

    const cursor = (await log(user.token, '?limit=1')).headers.get('x-next-cursor')!;
    const other = await signUp(api);
    for (const bad of [
      'not-a-cursor',
      `${cursor}x`,
      Buffer.from('{"PK":"USER#x#SECLOG","SK":"a"}').toString('base64url'),
    ]) {
      const res = await api.get(`/auth/me/security-log?cursor=${encodeURIComponent(bad)}`, { token: user.token });
      expect(res.status).toBe(422);
    }
    // a cursor of another account's log does not read that log
    expect(
      (await api.get(`/auth/me/security-log?cursor=${encodeURIComponent(cursor)}`, { token: other.token })).status,
    ).toBe(422);
    for (const limit of ['0', '501', 'x'])
      expect((await api.get(`/auth/me/security-log?limit=${limit}`, { token: user.token })).status).toBe(422);
    expect((await log(user.token, '?limit=500')).body).toHaveLength(6);
  });
});
