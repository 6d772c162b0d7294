import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';

/** Its own stack: nothing else from this address may have used the minute's allowance. */
const ref = useTestStack({}, { ownStack: true });
const api = client(() => ref.stack.url);

describe('payment webhook rate limit', () => {
  it('the 121st request in a minute from one address is 429', async () => {
    // Unsigned requests to a provider that is not configured: the limit is taken before anything else, so each one counts.
    const answers: number[] = [];
    for (let i = 0; i < 12; i++)
      answers.push(
        ...(await Promise.all(Array.from({ length: 10 }, () => api.post('/billing/stripe/webhook', {})))).map(
          (r) => r.status,
        ),
      );
    expect(answers).toEqual(Array(120).fill(404));
    const over = await api.post('/billing/stripe/webhook', {});
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
