/** Every HTTP exchange's duration (each retry counts as a request of its own), and the figures printed from them. */
export class Latency {
  private readonly ms: number[] = [];
  /** A fetch that records how long each exchange took, for the typed client. */
  readonly fetch = async (req: Request): Promise<Response> => {
    const t = performance.now();
    try {
      return await fetch(req);
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
