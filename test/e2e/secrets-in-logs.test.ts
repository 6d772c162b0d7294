import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { captureOutput } from '../helpers/output.ts';
import { client, signUp, PASSWORD } from '../helpers/http.ts';
import { setPlan } from '../helpers/plans.ts';
import { frozenClock, totpCode } from '../helpers/sign-in.ts';
import { readOutbox } from '../helpers/outbox.ts';

/**
 * Secrets never reach a log line. Everything the process writes (stdout and stderr, at debug
 * level, EMF metrics on) is captured while an account registers, signs in, enrols an authenticator,
 * regenerates its recovery codes, signs in with a code, resets its password and creates an API key; then
 * none of the secrets those flows handle may appear anywhere in the output.
 */
const written = captureOutput();
const clock = frozenClock();
const ref = useTestStack(
  { LOG_LEVEL: 'debug', POWERTOOLS_METRICS_DISABLED: 'false', APP_BASE_URL: 'https://catalog.example.test/' },
  { clock },
);
const api = client(() => ref.stack.url);
const STEP = 30_000;
const NEW_PASSWORD = 'another horse battery staple';
const RESET_LINK = /https:\/\/catalog\.example\.test\/reset-password\?token=([A-Za-z0-9_-]+)/;

describe('the secrets grep', () => {
  it('no password, token, TOTP secret or code, recovery code, reset token, API key or password hash in any output line', async () => {
    const secrets: string[] = [PASSWORD, NEW_PASSWORD, '$argon2'];
    const ok = (res: { status: number; text: string }, status: number) => expect(res.status, res.text).toBe(status);

    // Registration and sign-in.
    const user = await signUp(api);
    secrets.push(user.token, user.refresh);

    // TOTP enrolment and confirmation.
    const provisioned = await api.post('/auth/totp/provision', undefined, { token: user.token });
    ok(provisioned, 200);
    const secret = provisioned.body.secret as string;
    secrets.push(secret, provisioned.body.otpauth_url ?? secret);
    const enrolCode = await totpCode(secret, clock.now());
    secrets.push(enrolCode);
    ok(await api.post('/auth/totp/verify', { secret, code: enrolCode, name: 'Phone' }, { token: user.token }), 204);

    // Recovery codes.
    clock.advance(STEP);
    const proofCode = await totpCode(secret, clock.now());
    secrets.push(proofCode);
    const regenerated = await api.post(
      '/auth/totp/recovery/regenerate',
      { current_password: PASSWORD, totp_code: proofCode },
      { token: user.token },
    );
    ok(regenerated, 200);
    const codes = regenerated.body.codes as string[];
    expect(codes).toHaveLength(10);
    secrets.push(...codes);

    // Sign-in with a second factor, then with a recovery code; a refused sign-in with a wrong password.
    clock.advance(STEP);
    const signInCode = await totpCode(secret, clock.now());
    secrets.push(signInCode);
    const withCode = await api.post('/auth/login', { email: user.email, password: PASSWORD, totp_code: signInCode });
    ok(withCode, 200);
    secrets.push(withCode.body.access_token, withCode.body.refresh_token);
    const withRecovery = await api.post('/auth/login', { email: user.email, password: PASSWORD, totp_code: codes[0] });
    ok(withRecovery, 200);
    secrets.push(withRecovery.body.access_token, withRecovery.body.refresh_token);
    const wrong = 'Wrong-Password-Here-42';
    secrets.push(wrong);
    ok(await api.post('/auth/login', { email: user.email, password: wrong, totp_code: signInCode }), 401);

    // Refresh (the rotated pair).
    const refreshed = await api.post('/auth/token/refresh', { refresh_token: withCode.body.refresh_token });
    ok(refreshed, 200);
    secrets.push(refreshed.body.access_token, refreshed.body.refresh_token);

    // An API key (needs crud_pro and crud_api: Starter has both).
    await setPlan(user.id, 'Starter');
    const key = await api.post('/me/api-keys', { name: 'ci' }, { token: withRecovery.body.access_token });
    ok(key, 201);
    secrets.push(key.body.key);

    // Password reset: the mailed token and the new password.
    clock.advance(STEP);
    const resetCode = await totpCode(secret, clock.now());
    secrets.push(resetCode);
    ok(await api.post('/auth/password/reset', { email: user.email, totp_code: resetCode }), 200);
    await ref.stack.queues.drain();
    const mails = await readOutbox(ref.stack.dataDir, { to: user.email });
    const resetToken = RESET_LINK.exec(mails[mails.length - 1].text)?.[1];
    expect(resetToken).toBeTruthy();
    secrets.push(resetToken!);
    ok(await api.post('/auth/password/reset/confirm', { token: resetToken, new_password: NEW_PASSWORD }), 200);
    await ref.stack.queues.drain();

    const output = written.join('');
    // The capture saw the flows (debug lines of every request and their metrics), so an empty grep means something.
    expect(output).toContain('"message":"request served"');
    expect(output).toContain('"route":"POST /auth/totp/verify"');
    expect(output).toContain('"route":"POST /me/api-keys"');
    expect(output).toContain('"SignInSucceeded":1');
    for (const s of new Set(secrets)) {
      expect(s.length).toBeGreaterThanOrEqual(6);
      expect(output.includes(s), `found in the output: ${s}`).toBe(false);
    }
    // Recovery codes also without their dashes (as stored for comparison).
    for (const c of codes) expect(output.toUpperCase().includes(c.replace(/-/g, '').toUpperCase())).toBe(false);
  });
});
