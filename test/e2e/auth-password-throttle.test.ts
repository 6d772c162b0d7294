import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, uniqueEmail } from '../helpers/http.ts';
import { frozenClock, login, postFrom } from '../helpers/sign-in.ts';

// Every password check counts towards the sign-in lockout and the per-address rate limit.
const clock = frozenClock();
const ref = useTestStack({ LOGIN_RATE_LIMIT_PER_MINUTE: '10' }, { clock });
const api = client(() => ref.stack.url);
const LOCKED = 'Account temporarily locked due to failed login attempts. Please try again later.';

describe('password re-checks are throttled like sign-in', () => {
  it('counts wrong passwords on POST /auth/totp/delete and on re-checks towards the lockout, and limits them per source address', async () => {
    // registered and signed in from another address: 127.0.0.1 starts with its whole budget of 10
    const email = uniqueEmail('throttle');
    expect((await postFrom('127.0.0.2', ref.stack.url, '/auth/register', { email, password: PASSWORD })).status).toBe(
      201,
    );
    const user = {
      email,
      token: (await postFrom('127.0.0.2', ref.stack.url, '/auth/login', { email, password: PASSWORD })).body
        .access_token as string,
    };
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push(
        (await api.post('/auth/totp/delete', { password: 'wrong password' }, { token: user.token })).status,
      );
    for (let i = 0; i < 4; i++)
      statuses.push(
        (
          await api.post(
            '/auth/totp/recovery/regenerate',
            { current_password: 'wrong password' },
            { token: user.token },
          )
        ).status,
      );
    expect(statuses).toEqual(Array(9).fill(401));
    // the 10th failure locks, whichever route it comes through
    const tenth = await api.post('/auth/totp/delete', { password: 'wrong password' }, { token: user.token });
    expect(tenth.status).toBe(423);
    expect(tenth.body).toEqual({
      detail: LOCKED,
      locked_until: new Date(clock.now().getTime() + 15 * 60_000).toISOString(),
    });

    // the lock holds for sign-in (from another address, whose budget is untouched) and for the right password everywhere
    const signIn = await postFrom('127.0.0.3', ref.stack.url, '/auth/login', { email: user.email, password: PASSWORD });
    expect([signIn.status, signIn.body.detail]).toEqual([423, LOCKED]);
    // 127.0.0.1 has spent its 10 password checks this minute: 429 with Retry-After, before anything is checked
    const limited = await api.post('/auth/totp/delete', { password: PASSWORD }, { token: user.token });
    expect([limited.status, limited.body]).toEqual([429, { detail: 'Too many requests' }]);
    expect(limited.headers.get('retry-after')).toBe('60');
    expect((await login(api, user.email, PASSWORD)).status).toBe(429);

    clock.advance(61_000); // a new minute, the lock still in force
    const rightPassword = await api.post(
      '/auth/totp/recovery/regenerate',
      { current_password: PASSWORD },
      { token: user.token },
    );
    expect([rightPassword.status, rightPassword.body.detail]).toEqual([423, LOCKED]);
    clock.advance(15 * 60_000); // the lock is over (and so is the access token's life): sign in again
    const fresh = await postFrom('127.0.0.4', ref.stack.url, '/auth/login', { email: user.email, password: PASSWORD });
    expect(fresh.status).toBe(200);
    expect(
      (await api.post('/auth/totp/delete', { password: PASSWORD }, { token: fresh.body.access_token })).status,
    ).toBe(204);
  });
});
