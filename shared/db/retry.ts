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
