import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, signUp, uniqueEmail } from '../helpers/http.ts';
import { enrolAuthenticator, frozenClock, login, totpCode } from '../helpers/sign-in.ts';
import { readOutbox } from '../helpers/outbox.ts';

const clock = frozenClock();
const ref = useTestStack({}, { clock });
const api = client(() => ref.stack.url);

const LOCKED = 'Account temporarily locked due to failed login attempts. Please try again later.';
const MINUTE = 60_000;

const fail = (email: string) => login(api, email, 'wrong password');
async function failTimes(email: string, n: number) {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await fail(email)).status);
  return statuses;
}

describe('account lockout after repeated failed sign-ins', () => {
  it('locks on the 10th consecutive failure: 423 with a future locked_until, also for the right password', async () => {
    const user = await signUp(api);
    expect(await failTimes(user.email, 9)).toEqual(Array(9).fill(401));
    const tenth = await fail(user.email);
    expect(tenth.status).toBe(423);
    expect(tenth.body).toEqual({
      detail: LOCKED,
      locked_until: new Date(clock.now().getTime() + 15 * MINUTE).toISOString(),
    });
    expect(tenth.body.detail.startsWith('Account temporarily locked due to failed login attempts')).toBe(true);
    expect(tenth.headers.get('retry-after')).toBe(String(15 * 60)); // the seconds until locked_until
    expect(Date.parse(tenth.body.locked_until)).toBeGreaterThan(clock.now().getTime());
    const right = await login(api, user.email, PASSWORD);
    expect([right.status, right.body]).toEqual([423, tenth.body]);
    expect(right.cookies).toEqual([]);
  });

  it('lifts the lock after 15 minutes and counts afresh', async () => {
    const user = await signUp(api);
    await failTimes(user.email, 10);
    clock.advance(15 * MINUTE - 1_000);
    const last = await login(api, user.email, PASSWORD);
    expect([last.status, last.headers.get('retry-after')]).toEqual([423, '1']);
    clock.advance(1_000);
    expect((await fail(user.email)).status).toBe(401);
    expect((await login(api, user.email, PASSWORD)).status).toBe(200);
  });

  it('does not extend the lock with attempts made while locked', async () => {
    const user = await signUp(api);
    await failTimes(user.email, 9);
    const { body } = await fail(user.email);
    clock.advance(5 * MINUTE);
    expect((await fail(user.email)).body).toEqual(body);
    clock.advance(10 * MINUTE);
    expect((await login(api, user.email, PASSWORD)).status).toBe(200);
  });

  it('resets the count on a successful sign-in', async () => {
    const user = await signUp(api);
    await failTimes(user.email, 9);
    expect((await login(api, user.email, PASSWORD)).status).toBe(200);
    expect(await failTimes(user.email, 9)).toEqual(Array(9).fill(401));
    expect((await login(api, user.email, PASSWORD)).status).toBe(200);
  });

  it('counts only failures within 15 minutes of the first one', async () => {
    const user = await signUp(api);
    await failTimes(user.email, 9);
    clock.advance(15 * MINUTE);
    expect(await failTimes(user.email, 9)).toEqual(Array(9).fill(401));
    expect((await login(api, user.email, PASSWORD)).status).toBe(200);
  });

  it('counts every one of many concurrent failures (atomic counter)', async () => {
    const user = await signUp(api);
    const results = await Promise.all(Array.from({ length: 50 }, () => fail(user.email)));
    // failures 1..9 are plain refusals; from the 10th on the account is locked
    expect(results.filter((r) => r.status === 401)).toHaveLength(9);
    expect(results.filter((r) => r.status === 423)).toHaveLength(41);
    expect((await login(api, user.email, PASSWORD)).status).toBe(423);
  });

  it('counts exactly: nine concurrent failures leave the account open, the tenth locks it', async () => {
    const open = await signUp(api);
    await Promise.all(Array.from({ length: 9 }, () => fail(open.email)));
    expect((await login(api, open.email, PASSWORD)).status).toBe(200);
    const locked = await signUp(api);
    await Promise.all(Array.from({ length: 9 }, () => fail(locked.email)));
    expect((await fail(locked.email)).status).toBe(423);
  });

  it('counts wrong second-factor codes, not missing ones', async () => {
    const user = await signUp(api);
    const secret = await enrolAuthenticator(api, user.token, clock.now());
    for (let i = 0; i < 5; i++)
      expect((await login(api, user.email, PASSWORD)).body).toEqual({ detail: 'TOTP code required' });
    for (let i = 0; i < 9; i++) expect((await login(api, user.email, PASSWORD, '000000')).status).toBe(401);
    const tenth = await login(api, user.email, PASSWORD, '000001');
    expect([tenth.status, tenth.body.detail]).toEqual([423, LOCKED]);
    clock.advance(30_000);
    expect((await login(api, user.email, PASSWORD, await totpCode(secret, clock.now()))).status).toBe(423);
  });

  it('keeps other accounts unaffected', async () => {
    const victim = await signUp(api);
    const bystander = await signUp(api);
    await failTimes(victim.email, 10);
    expect((await login(api, bystander.email, PASSWORD)).status).toBe(200);
  });

  it('treats an unknown address exactly like an account, so the lockout does not reveal which addresses exist', async () => {
    const ghost = uniqueEmail('ghost');
    const user = await signUp(api);
    const ghostAnswers = [...(await failTimes(ghost, 10)), (await fail(ghost)).status];
    const userAnswers = [...(await failTimes(user.email, 10)), (await fail(user.email)).status];
    expect(ghostAnswers).toEqual(userAnswers);
    expect(ghostAnswers).toEqual([...Array(9).fill(401), 423, 423]);
    expect(Object.keys((await fail(ghost.toUpperCase())).body).sort()).toEqual(['detail', 'locked_until']);
  });

  it('a confirmed password reset lifts the lock', async () => {
    const user = await signUp(api);
    await failTimes(user.email, 10);
    await api.post('/auth/password/reset', { email: user.email });
    await ref.stack.queues.drain();
    const [mail] = await readOutbox(ref.stack.dataDir, { to: user.email });
    const token = /token=([A-Za-z0-9_-]+)/.exec(mail.text)![1];
    expect((await api.post('/auth/password/reset/confirm', { token, new_password: 'a fresh passphrase' })).status).toBe(
      200,
    );
    expect((await login(api, user.email, 'a fresh passphrase')).status).toBe(200);
  });
});
