import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, signUp, uniqueEmail } from '../helpers/http.ts';
import { enrolAuthenticator, frozenClock, login, totpCode } from '../helpers/sign-in.ts';
import { linkFrom, readOutbox } from '../helpers/outbox.ts';

// Sensitive account changes need recent proof of identity (password, and a second factor when enrolled).
const clock = frozenClock();
const ref = useTestStack({ APP_BASE_URL: 'https://catalog.example.test' }, { clock });
const api = client(() => ref.stack.url);
const STEP = 30_000;

const refusal = (res: { status: number; body: unknown }) => [res.status, res.body];
const mailsTo = async (to: string) => {
  await ref.stack.queues.drain();
  return readOutbox(ref.stack.dataDir, { to });
};

/** A signed-in account with one authenticator; `code()` is a fresh six-digit code (the clock moves a step first). */
async function withAuthenticator() {
  const user = await signUp(api);
  const secret = await enrolAuthenticator(api, user.token, clock.now());
  const [device] = (await api.get('/auth/totp/devices', { token: user.token })).body;
  const code = async () => {
    clock.advance(STEP);
    return totpCode(secret, clock.now());
  };
  return { ...user, secret, device, code };
}

describe('the takeover path with a stolen access token', () => {
  it('is refused at every step: remove the authenticator, take recovery codes, change the e-mail, reset the password to another mailbox, sign in without the second factor', async () => {
    const victim = await withAuthenticator();
    const stolen = victim.token; // all the attacker has (and, at worst, the password, but not the authenticator)
    const attackerMailbox = uniqueEmail('attacker');

    // 1. Remove the authenticator: the token alone, a guessed password, even the right password without a code.
    const removeBare = await api.delete(`/auth/totp/devices/${victim.device.id}`, undefined, { token: stolen });
    expect(refusal(removeBare)).toEqual([401, { detail: 'Current password required' }]);
    const removeGuess = await api.delete(
      `/auth/totp/devices/${victim.device.id}`,
      { current_password: 'guessed password' },
      { token: stolen },
    );
    expect(refusal(removeGuess)).toEqual([401, { detail: 'Invalid password' }]);
    const removeNoCode = await api.delete(
      `/auth/totp/devices/${victim.device.id}`,
      { current_password: PASSWORD },
      { token: stolen },
    );
    expect(refusal(removeNoCode)).toEqual([401, { detail: 'TOTP code required' }]);
    const removeBadCode = await api.delete(
      `/auth/totp/devices/${victim.device.id}`,
      { current_password: PASSWORD, totp_code: '000000' },
      { token: stolen },
    );
    expect(refusal(removeBadCode)).toEqual([401, { detail: 'TOTP code required or invalid' }]);
    expect((await api.get('/auth/totp/devices', { token: victim.token })).body).toHaveLength(1);

    // 2. Regenerate recovery codes (they would stand in for the authenticator).
    const regenerate = await api.post(
      '/auth/totp/recovery/regenerate',
      { current_password: PASSWORD },
      { token: stolen },
    );
    expect(refusal(regenerate)).toEqual([401, { detail: 'TOTP code required' }]);
    expect((await api.post('/auth/totp/recovery/regenerate', undefined, { token: stolen })).status).toBe(401);
    expect((await api.get('/auth/totp/recovery', { token: victim.token })).body).toEqual({ total: 0, unused: 0 });

    // 3. Change the e-mail to the attacker's mailbox.
    const moveBare = await api.patch('/auth/me', { email: attackerMailbox }, { token: stolen });
    expect(refusal(moveBare)).toEqual([401, { detail: 'Current password required' }]);
    const moveNoCode = await api.patch(
      '/auth/me',
      { email: attackerMailbox, current_password: PASSWORD },
      { token: stolen },
    );
    expect(refusal(moveNoCode)).toEqual([401, { detail: 'TOTP code required' }]);
    expect((await api.get('/auth/me', { token: victim.token })).body.email).toBe(victim.email);
    expect(await mailsTo(attackerMailbox)).toEqual([]);

    // 4. Reset the password to the attacker's mailbox: it has no account; the victim's address needs the second factor.
    expect((await api.post('/auth/password/reset', { email: attackerMailbox })).status).toBe(200);
    expect((await api.post('/auth/password/reset', { email: victim.email })).status).toBe(200);
    expect(await mailsTo(attackerMailbox)).toEqual([]);
    expect(await mailsTo(victim.email)).toEqual([]);

    // 5. Sign in without the second factor, under either address.
    expect(refusal(await login(api, attackerMailbox, PASSWORD))).toEqual([401, { detail: 'Invalid credentials' }]);
    expect(refusal(await login(api, victim.email, PASSWORD))).toEqual([401, { detail: 'TOTP code required' }]);

    // The account's owner, with the password and a code, still can do each change.
    const removed = await api.delete(
      `/auth/totp/devices/${victim.device.id}`,
      { current_password: PASSWORD, totp_code: await victim.code() },
      { token: victim.token },
    );
    expect(removed.status).toBe(204);
  });
});

describe('proof of identity for sensitive changes', () => {
  it('regenerates recovery codes with the password alone when the account has no authenticator, and with a code when it has one', async () => {
    const plain = await signUp(api);
    expect(
      (await api.post('/auth/totp/recovery/regenerate', { current_password: 'wrong' }, { token: plain.token })).status,
    ).toBe(401);
    const ok = await api.post('/auth/totp/recovery/regenerate', { current_password: PASSWORD }, { token: plain.token });
    expect(ok.status).toBe(200);
    expect(ok.body.codes).toHaveLength(10);

    const user = await withAuthenticator();
    const first = await api.post(
      '/auth/totp/recovery/regenerate',
      { current_password: PASSWORD, totp_code: await user.code() },
      { token: user.token },
    );
    expect(first.status).toBe(200);
    // a recovery code proves the second factor too (and is used up)
    const second = await api.post(
      '/auth/totp/recovery/regenerate',
      { current_password: PASSWORD, totp_code: first.body.codes[0] },
      { token: user.token },
    );
    expect(second.status).toBe(200);
    expect(second.body.codes.some((c: string) => first.body.codes.includes(c))).toBe(false);
  });

  it('keeps other profile fields free of proof', async () => {
    const user = await withAuthenticator();
    const res = await api.patch(
      '/auth/me',
      { name: 'Bea', timezone: 'Europe/Paris', email: user.email },
      { token: user.token },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Bea', timezone: 'Europe/Paris', email: user.email });
  });
});

describe('changing the e-mail', () => {
  it('takes effect only once the link mailed to the new address is opened; the old address gets a notice', async () => {
    const user = await signUp(api);
    const next = uniqueEmail('moved');
    const res = await api.patch(
      '/auth/me',
      { email: next, name: 'Moved', current_password: PASSWORD },
      { token: user.token },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ email: user.email, name: 'Moved' });
    expect((await login(api, next, PASSWORD)).status).toBe(401);

    const [notice] = await mailsTo(user.email);
    expect(notice.subject).toBe('Your Infrastructure Catalog e-mail address is being changed');
    expect(notice.text).toContain(next);
    const [confirmation] = await mailsTo(next);
    const link = linkFrom(confirmation, '/confirm-email');
    expect(link.origin).toBe('https://catalog.example.test');
    const token = link.searchParams.get('token')!;

    expect((await api.post('/auth/email/confirm', { token })).body).toEqual({ status: 'ok' });
    expect((await api.get('/auth/me', { token: user.token })).body.email).toBe(next);
    expect((await login(api, next, PASSWORD)).status).toBe(200);
    expect((await login(api, user.email, PASSWORD)).status).toBe(401);

    const again = await api.post('/auth/email/confirm', { token });
    expect(refusal(again)).toEqual([400, { detail: 'E-mail confirmation token has already been used' }]);
    expect(refusal(await api.post('/auth/email/confirm', { token: 'nope' }))).toEqual([
      404,
      { detail: 'E-mail confirmation token not found' },
    ]);
    expect(refusal(await api.post('/auth/email/confirm', { token: ' ' }))).toEqual([
      400,
      { detail: 'E-mail confirmation token is required' },
    ]);
    expect((await api.post('/auth/email/confirm', {})).status).toBe(422);
  });

  it('checks the new address is free when asked and again when confirmed; an expired link is refused', async () => {
    const a = await signUp(api);
    const b = await signUp(api);
    const taken = await api.patch('/auth/me', { email: b.email, current_password: PASSWORD }, { token: a.token });
    expect(refusal(taken)).toEqual([400, { detail: 'Email already registered' }]);

    const contested = uniqueEmail('contested');
    expect(
      (await api.patch('/auth/me', { email: contested, current_password: PASSWORD }, { token: a.token })).status,
    ).toBe(200);
    const token = linkFrom((await mailsTo(contested))[0], '/confirm-email').searchParams.get('token')!;
    await signUp(api, contested); // someone registers the address before the link is opened
    expect(refusal(await api.post('/auth/email/confirm', { token }))).toEqual([
      400,
      { detail: 'Email already registered' },
    ]);
    const me = await api.get('/auth/me', { token: a.token });
    expect([me.status, me.body.email]).toEqual([200, a.email]);

    const late = uniqueEmail('late');
    expect((await api.patch('/auth/me', { email: late, current_password: PASSWORD }, { token: b.token })).status).toBe(
      200,
    );
    const lateToken = linkFrom((await mailsTo(late))[0], '/confirm-email').searchParams.get('token')!;
    clock.advance(60 * 60_000 + 1);
    expect(refusal(await api.post('/auth/email/confirm', { token: lateToken }))).toEqual([
      400,
      { detail: 'E-mail confirmation token has expired' },
    ]);
    const signedIn = await login(api, b.email, PASSWORD); // the access token from before has expired by now
    expect((await api.get('/auth/me', { token: signedIn.body.access_token })).body.email).toBe(b.email);
  });

  it('lets exactly one of two accounts confirming the same new address have it, every time', async () => {
    for (let i = 0; i < 20; i++) {
      const [a, b] = await Promise.all([signUp(api), signUp(api)]);
      const wanted = uniqueEmail('wanted');
      for (const user of [a, b])
        expect(
          (await api.patch('/auth/me', { email: wanted, current_password: PASSWORD }, { token: user.token })).status,
        ).toBe(200);
      const tokens = (await mailsTo(wanted))
        .slice(-2)
        .map((m) => linkFrom(m, '/confirm-email').searchParams.get('token')!);
      const results = await Promise.all(tokens.map((token) => api.post('/auth/email/confirm', { token })));
      expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
      const emails = await Promise.all(
        [a, b].map(async (u) => (await api.get('/auth/me', { token: u.token })).body.email),
      );
      expect(emails.filter((e) => e === wanted)).toHaveLength(1);
    }
  });
});
