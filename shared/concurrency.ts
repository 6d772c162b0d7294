/** Runs `fn` on each of `xs` in order of start, at most `limit` at once (a page's reads in one round trip, never hundreds of requests together). */
export async function forEachAtMost<T>(xs: readonly T[], limit: number, fn: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < xs.length) await fn(xs[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, xs.length) }, worker));
}
