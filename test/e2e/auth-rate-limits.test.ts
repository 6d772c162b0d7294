import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { PASSWORD, uniqueEmail } from '../helpers/http.ts';
import { frozenClock, postFrom } from '../helpers/sign-in.ts';

// SPEC "Rate limits" (the test harness lifts them for other files; this one restores SPEC's values).
const clock = frozenClock();
const ref = useTestStack({ LOGIN_RATE_LIMIT_PER_MINUTE: '10', PASSWORD_RESET_RATE_LIMIT_PER_MINUTE: '5' }, { clock });

/** Each test speaks from its own loopback address, so the per-address buckets of tests do not mix. */
let nextAddress = 10;
const freshAddress = () => `127.0.0.${nextAddress++}`;
const post = (from: string, path: string, body: unknown) => postFrom(from, ref.stack.url, path, body);

async function registered(from: string) {
  const email = uniqueEmail('rl');
  expect((await post(from, '/auth/register', { email, password: PASSWORD })).status).toBe(201);
  return email;
}

describe('POST /auth/login: 10 requests per minute per source address', () => {
  it('answers the 11th request within a minute with 429 and Retry-After, whatever the credentials', async () => {
    const from = freshAddress();
    const email = await registered(from);
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++)
      statuses.push((await post(from, '/auth/login', { email, password: 'wrong password' })).status);
    statuses.push((await post(from, '/auth/login', { email, password: PASSWORD })).status);
    expect(statuses).toEqual([...Array(9).fill(401), 200]);
    const eleventh = await post(from, '/auth/login', { email, password: PASSWORD });
    expect(eleventh.status).toBe(429);
    expect(eleventh.body).toEqual({ detail: 'Too many requests' });
    expect(eleventh.headers['retry-after']).toBe('60');
  });

  it('counts per address: another address signs in meanwhile', async () => {
    const busy = freshAddress();
    const email = await registered(busy);
    for (let i = 0; i < 10; i++) await post(busy, '/auth/login', { email: uniqueEmail(), password: PASSWORD });
    expect((await post(busy, '/auth/login', { email, password: PASSWORD })).status).toBe(429);
    expect((await post(freshAddress(), '/auth/login', { email, password: PASSWORD })).status).toBe(200);
  });

  it('counts per route: the same address may still ask for a password reset', async () => {
    const from = freshAddress();
    for (let i = 0; i < 11; i++) await post(from, '/auth/login', { email: uniqueEmail(), password: PASSWORD });
    expect((await post(from, '/auth/login', { email: uniqueEmail(), password: PASSWORD })).status).toBe(429);
    expect((await post(from, '/auth/password/reset', { email: uniqueEmail() })).status).toBe(200);
  });

  it('opens again when the minute is over, Retry-After counting down meanwhile', async () => {
    const from = freshAddress();
    const email = await registered(from);
    for (let i = 0; i < 10; i++) await post(from, '/auth/login', { email: uniqueEmail(), password: PASSWORD });
    clock.advance(20_000);
    expect((await post(from, '/auth/login', { email, password: PASSWORD })).headers['retry-after']).toBe('40');
    clock.advance(40_000);
    expect((await post(from, '/auth/login', { email, password: PASSWORD })).status).toBe(200);
  });

  it('admits exactly 10 of many concurrent requests from one address', async () => {
    const from = freshAddress();
    const results = await Promise.all(
      Array.from({ length: 25 }, () => post(from, '/auth/login', { email: uniqueEmail(), password: PASSWORD })),
    );
    expect(results.filter((r) => r.status === 401)).toHaveLength(10);
    expect(results.filter((r) => r.status === 429)).toHaveLength(15);
  });
});

describe('POST /auth/password/reset: 5 requests per minute per source address', () => {
  it('answers the 6th request within a minute with 429 and Retry-After', async () => {
    const from = freshAddress();
    for (let i = 0; i < 5; i++)
      expect((await post(from, '/auth/password/reset', { email: uniqueEmail() })).status).toBe(200);
    const sixth = await post(from, '/auth/password/reset', { email: uniqueEmail() });
    expect(sixth.status).toBe(429);
    expect(sixth.headers['retry-after']).toBe('60');
    expect((await post(freshAddress(), '/auth/password/reset', { email: uniqueEmail() })).status).toBe(200);
  });
});

describe('POST /auth/register', () => {
  it('is not rate-limited', async () => {
    const from = freshAddress();
    const results = await Promise.all(
      Array.from({ length: 15 }, () => post(from, '/auth/register', { email: uniqueEmail(), password: PASSWORD })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(15).fill(201));
  });
});
