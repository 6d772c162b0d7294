import { isOutage } from '#shared/outage';

/**
 * The one retry loop: re-runs `fn` while `when(err)` holds, at most `attempts` times in all, waiting
 * between tries a random time ("full jitter") below `baseMs` doubled on each try and capped at
 * `capMs` (no cap by default; 0 or no `baseMs`: at once). Used for lost races (`onContention`),
 * outages (`throughOutage`) and unprocessed batch keys.
 */
export async function retry<T>(
  fn: (attempt: number) => Promise<T>,
  opts: { attempts: number; when: (err: unknown) => boolean; baseMs?: number; capMs?: number },
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (attempt >= opts.attempts || !opts.when(err)) throw err;
      if (opts.baseMs)
        await new Promise((r) =>
          setTimeout(r, Math.random() * Math.min(opts.capMs ?? Infinity, opts.baseMs! * 2 ** (attempt - 1))),
        );
    }
  }
}

/**
 * How a write that lost a race to another writer of the same items tries again: a stale
 * read-then-write (a listing's order key, a name claim, an audit head, a count or version moved
 * meanwhile), a transaction DynamoDB cancelled for a conflict. Every such loser reads again and
 * retries, so the caller is not refused over bookkeeping that is ours.
 *
 * Sized to the collision rate: a writer's try fails only when another writer committed between its
 * read and its write, and each of n writers commits once, so n-way contention on one item costs a
 * writer at most n - 1 lost tries; 10 tries absorb 8-way contention with room to spare. The waits
 * (full jitter, doubling from 10 ms, capped at 500 ms: at most about 2 s in all, about 1 s on
 * average, inside any request's time) spread the contenders so that most need one or two retries.
 * Spent tries end in the loser's refusal, a 409 with `Retry-After: 1` (#db/transact's
 * `concurrentChange`), which clients retry as they retry a 503.
 */
export const CONTENTION = { attempts: 10, baseMs: 10, capMs: 500 } as const;

/** Re-runs `fn` (from its reads) while its failure is a lost race (`lost(err)`), as CONTENTION says. */
export const onContention = <T>(fn: (attempt: number) => Promise<T>, lost: (err: unknown) => boolean): Promise<T> =>
  retry(fn, { ...CONTENTION, when: lost });

/**
 * A write nobody runs again when it is lost (an idempotency record's answer or release, a job's last
 * words: its record's end, the undo of what it left), retried past the SDK's own attempts while the
 * failure is an outage (`isOutage`: throttled, 5xx, timed out). The default suits a request that waits
 * for it (about 1.5 s at most); a worker passes more attempts (9: about 13 s).
 */
export const throughOutage = <T>(fn: () => Promise<T>, attempts = 6): Promise<T> =>
  retry(fn, { attempts, when: isOutage, baseMs: 50 });
