import { isOutage } from '#shared/outage';

/**
 * The one retry loop: re-runs `fn` while `when(err)` holds, at most `attempts` times in all, waiting
 * a jittered, doubling `baseMs` between tries (0: at once). Used for transaction conflicts, stale
 * reads that a concurrent write invalidated, and unprocessed batch keys.
 */
export async function retry<T>(fn: (attempt: number) => Promise<T>, opts: { attempts: number; when: (err: unknown) => boolean; baseMs?: number }): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (attempt >= opts.attempts || !opts.when(err)) throw err;
      if (opts.baseMs) await new Promise((r) => setTimeout(r, Math.random() * opts.baseMs! * 2 ** (attempt - 1)));
    }
  }
}

/**
 * A write nobody runs again when it is lost (an idempotency record's answer or release, a job's last
 * words: its record's end, the undo of what it left), retried past the SDK's own attempts while the
 * failure is an outage (`isOutage`: throttled, 5xx, timed out). The default suits a request that waits
 * for it (about 1.5 s at most); a worker passes more attempts (9: about 13 s).
 */
export const throughOutage = <T>(fn: () => Promise<T>, attempts = 6): Promise<T> => retry(fn, { attempts, when: isOutage, baseMs: 50 });
