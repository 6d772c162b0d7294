import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, uniqueEmail } from '../helpers/http.ts';

/** Every answer of POST /auth/password/reset — 422 and 429 included — takes the same minimum time. */
const MIN_MS = 400;
const ref = useTestStack({ PASSWORD_RESET_MIN_DURATION_MS: String(MIN_MS), PASSWORD_RESET_RATE_LIMIT_PER_MINUTE: '2' });
const api = client(() => ref.stack.url);

async function timed(call: () => ReturnType<typeof api.post>) {
  const started = performance.now();
  const res = await call();
  return { res, ms: performance.now() - started };
}

describe('POST /auth/password/reset answers no sooner than PASSWORD_RESET_MIN_DURATION_MS', () => {
  it('pads a malformed body (422), malformed JSON (422) and the rate-limit refusal (429) like the 200', async () => {
    const badField = await timed(() => api.post('/auth/password/reset', { email: 'not an address' }));
    expect(badField.res.status).toBe(422);
    expect(badField.ms).toBeGreaterThanOrEqual(MIN_MS - 5);
    const badJson = await timed(() => api.post('/auth/password/reset', undefined, { raw: '{"email":' }));
    expect(badJson.res.status).toBe(422);
    expect(badJson.ms).toBeGreaterThanOrEqual(MIN_MS - 5);
    for (let i = 0; i < 2; i++) {
      const okay = await timed(() => api.post('/auth/password/reset', { email: uniqueEmail('nobody') }));
      expect(okay.res.status).toBe(200);
      expect(okay.ms).toBeGreaterThanOrEqual(MIN_MS - 5);
    }
    const limited = await timed(() => api.post('/auth/password/reset', { email: uniqueEmail('nobody') }));
    expect([limited.res.status, limited.res.body]).toEqual([429, { detail: 'Too many requests' }]);
    expect(limited.res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.ms).toBeGreaterThanOrEqual(MIN_MS - 5);
  });

  it('does not pad other routes', async () => {
    const other = await timed(() => api.post('/auth/password/reset/confirm', { token: '', new_password: 'x' }));
    expect(other.res.status).toBe(400);
    expect(other.ms).toBeLessThan(MIN_MS);
  });
});
