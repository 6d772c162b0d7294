import { describe, expect, it } from 'vitest';
import { CONTENTION, onContention, retry } from '#db/retry';

class Transient extends Error {}

describe('retry', () => {
  it('re-runs while the error is one to retry, and answers the first success', async () => {
    let calls = 0;
    const out = await retry(
      async (attempt) => {
        calls++;
        if (attempt < 3) throw new Transient();
        return attempt;
      },
      { attempts: 5, when: (err) => err instanceof Transient, baseMs: 1 },
    );
    expect(out).toBe(3);
    expect(calls).toBe(3);
  });

  it('gives up after the last attempt with the last error', async () => {
    let calls = 0;
    const run = retry(
      async () => {
        calls++;
        throw new Transient(`try ${calls}`);
      },
      { attempts: 4, when: (err) => err instanceof Transient },
    );
    await expect(run).rejects.toThrow('try 4');
    expect(calls).toBe(4);
  });

  it('a lost race is tried again as the contention policy says, then the last refusal is thrown', async () => {
    const lost = new Transient('lost');
    let calls = 0;
    await expect(
      onContention(
        async () => (calls++, Promise.reject(lost)),
        (err) => err === lost,
      ),
    ).rejects.toBe(lost);
    expect(calls).toBe(CONTENTION.attempts);
    // Enough tries for 8 writers of one item: each loses at most once to each of the 7 others.
    expect(CONTENTION.attempts).toBeGreaterThanOrEqual(8);
    calls = 0;
    expect(
      await onContention(
        async (attempt) => (calls++, attempt < 7 ? Promise.reject(lost) : 'written'),
        (err) => err === lost,
      ),
    ).toBe('written');
    expect(calls).toBe(7);
  });

  it('does not retry other errors', async () => {
    let calls = 0;
    const run = retry(
      async () => {
        calls++;
        throw new Error('bad input');
      },
      { attempts: 4, when: (err) => err instanceof Transient },
    );
    await expect(run).rejects.toThrow('bad input');
    expect(calls).toBe(1);
  });
});
