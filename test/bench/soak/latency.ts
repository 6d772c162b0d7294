/**
 * Every HTTP exchange's duration (each retry counts as a request of its own), and the figures printed
 * from them; and every 5xx answer, with whether it carried Retry-After (the budget: no 5xx but
 * a clean 503 with Retry-After).
 */
export class Latency {
  private readonly ms: number[] = [];
  readonly serverErrors = new Map<string, number>();
  /** A fetch that records how long each exchange took, for the typed client. */
  readonly fetch = async (req: Request): Promise<Response> => {
    const t = performance.now();
    try {
      const res = await fetch(req);
      if (res.status >= 500) {
        const key = `${res.status}${res.headers.has('retry-after') ? ' with Retry-After' : ' without Retry-After'}`;
        this.serverErrors.set(key, (this.serverErrors.get(key) ?? 0) + 1);
      }
      return res;
    } finally {
      this.ms.push(performance.now() - t);
    }
  };

  get requests(): number {
    return this.ms.length;
  }

  percentile(p: number): number {
    const sorted = [...this.ms].sort((a, b) => a - b);
    return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0;
  }
}
