import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, signUp, uniqueEmail } from '../helpers/http.ts';
import { enrolAuthenticator, frozenClock, login, totpCode } from '../helpers/sign-in.ts';
import { readOutbox } from '../helpers/outbox.ts';

const clock = frozenClock();
const ref = useTestStack({ APP_BASE_URL: 'https://catalog.example.test/' }, { clock });
const api = client(() => ref.stack.url);

const NEW_PASSWORD = 'a brand new passphrase';
const LINK = /https:\/\/catalog\.example\.test\/reset-password\?token=([A-Za-z0-9_-]+)/;

async function requestReset(email: string, totp_code?: string) {
  const res = await api.post('/auth/password/reset', { email, ...(totp_code ? { totp_code } : {}) });
  await ref.stack.queues.drain();
  return res;
}

/** Asks for a reset and answers the token from the mailed link. */
async function resetToken(email: string, totp_code?: string): Promise<string> {
  const before = (await readOutbox(ref.stack.dataDir, { to: email })).length;
  await requestReset(email, totp_code);
  const mails = await readOutbox(ref.stack.dataDir, { to: email });
  expect(mails).toHaveLength(before + 1);
  return LINK.exec(mails[mails.length - 1].text)![1];
}

const confirm = (token: string, new_password = NEW_PASSWORD) =>
  api.post('/auth/password/reset/confirm', { token, new_password });

describe('POST /auth/password/reset', () => {
  it("answers 200 {status:'ok'} with byte-identical bodies whether or not the address has an account", async () => {
    const user = await signUp(api);
    const known = await requestReset(user.email);
    const unknown = await requestReset(uniqueEmail('nobody'));
    expect([known.status, known.body]).toEqual([200, { status: 'ok' }]);
    expect(unknown.status).toBe(200);
    expect(unknown.text).toBe(known.text);
  });

  it('mails a link to <APP_BASE_URL>/reset-password?token=… with a plain-text and an HTML part', async () => {
    const user = await signUp(api);
    await requestReset(user.email);
    const [mail] = await readOutbox(ref.stack.dataDir, { to: user.email });
    expect(mail.subject).toBe('Reset your Infrastructure Catalog password');
    const token = LINK.exec(mail.text)![1];
    expect(Buffer.from(token, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    expect(mail.html).toContain(`href="https://catalog.example.test/reset-password?token=${token}"`);
    expect(mail.text).toContain('60 minutes');
  });

  it('sends nothing for an unknown address', async () => {
    const email = uniqueEmail('nobody');
    await requestReset(email);
    expect(await readOutbox(ref.stack.dataDir, { to: email })).toEqual([]);
  });

  it('sends nothing for an account with an authenticator unless a valid code comes with the request', async () => {
    const user = await signUp(api);
    const secret = await enrolAuthenticator(api, user.token, clock.now());
    clock.advance(30_000);
    const without = await requestReset(user.email);
    const wrong = await requestReset(user.email, '000000');
    expect(without.text).toBe('{"status":"ok"}');
    expect(wrong.text).toBe('{"status":"ok"}');
    expect(await readOutbox(ref.stack.dataDir, { to: user.email })).toEqual([]);
    const token = await resetToken(user.email, await totpCode(secret, clock.now()));
    expect((await confirm(token)).status).toBe(200);
  });

  it('accepts a recovery code as the second factor', async () => {
    const user = await signUp(api);
    const secret = await enrolAuthenticator(api, user.token, clock.now());
    clock.advance(30_000);
    const proof = { current_password: PASSWORD, totp_code: await totpCode(secret, clock.now()) };
    const { codes } = (await api.post('/auth/totp/recovery/regenerate', proof, { token: user.token })).body;
    await resetToken(user.email, codes[0]);
    expect((await api.get('/auth/totp/recovery', { token: user.token })).body.unused).toBe(9);
  });

  it('answers 422 naming a malformed address', async () => {
    const res = await api.post('/auth/password/reset', { email: 'not-an-address' });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'email']);
  });
});

describe('POST /auth/password/reset/confirm', () => {
  it('sets the new password, revokes every session and bumps the token version', async () => {
    const user = await signUp(api);
    const second = await login(api, user.email, PASSWORD);
    const token = await resetToken(user.email);
    const res = await confirm(token);
    expect([res.status, res.body]).toEqual([200, { status: 'ok' }]);
    // old access tokens: refused because the token version moved
    expect((await api.get('/auth/me', { token: user.token })).body).toEqual({ detail: 'Invalid token version' });
    expect((await api.get('/auth/me', { token: second.body.access_token })).body).toEqual({
      detail: 'Invalid token version',
    });
    // old refresh tokens: their sessions are gone
    expect((await api.post('/auth/token/refresh', { refresh_token: user.refresh })).status).toBe(401);
    expect((await api.post('/auth/token/refresh', { refresh_token: second.body.refresh_token })).status).toBe(401);
    expect((await login(api, user.email, PASSWORD)).status).toBe(401);
    const fresh = await login(api, user.email, NEW_PASSWORD);
    expect(fresh.status).toBe(200);
    expect((await api.get('/auth/sessions', { token: fresh.body.access_token })).body).toHaveLength(1);
  });

  it('works once: a used token answers 400', async () => {
    const user = await signUp(api);
    const token = await resetToken(user.email);
    expect((await confirm(token)).status).toBe(200);
    const again = await confirm(token, 'yet another passphrase');
    expect([again.status, again.body]).toEqual([400, { detail: 'Reset token has already been used' }]);
    expect((await login(api, user.email, NEW_PASSWORD)).status).toBe(200);
  });

  it('lets exactly one of several concurrent uses of a token succeed', async () => {
    const user = await signUp(api);
    const token = await resetToken(user.email);
    const passwords = [
      'first racing passphrase',
      'second racing passphrase',
      'third racing passphrase',
      'fourth racing passphrase',
    ];
    const results = await Promise.all(passwords.map((p) => confirm(token, p)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400]);
    const winner = passwords[results.findIndex((r) => r.status === 200)];
    for (const p of passwords) expect((await login(api, user.email, p)).status).toBe(p === winner ? 200 : 401);
  });

  it('expires after 60 minutes (400)', async () => {
    const user = await signUp(api);
    const token = await resetToken(user.email);
    clock.advance(60 * 60_000);
    const res = await confirm(token);
    expect([res.status, res.body]).toEqual([400, { detail: 'Reset token has expired' }]);
    expect((await login(api, user.email, PASSWORD)).status).toBe(200);
  });

  it('is still valid just before the 60 minutes are up', async () => {
    const user = await signUp(api);
    const token = await resetToken(user.email);
    clock.advance(60 * 60_000 - 1_000);
    expect((await confirm(token)).status).toBe(200);
  });

  it("answers 400 for an empty token and 404 'Reset token not found' for an unknown one", async () => {
    const empty = await confirm('');
    expect([empty.status, empty.body]).toEqual([400, { detail: 'Reset token is required' }]);
    const unknown = await confirm('x'.repeat(43));
    expect([unknown.status, unknown.body]).toEqual([404, { detail: 'Reset token not found' }]);
  });

  it('answers 400 for a password failing the policy, leaving the token usable', async () => {
    const user = await signUp(api);
    const token = await resetToken(user.email);
    const weak = await confirm(token, 'short');
    expect([weak.status, weak.body]).toEqual([400, { detail: 'Password must be at least 8 characters long' }]);
    expect((await confirm(token)).status).toBe(200);
  });

  it('answers 422 naming missing fields', async () => {
    const res = await api.post('/auth/password/reset/confirm', {});
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual([
      'body.new_password',
      'body.token',
    ]);
  });
});
