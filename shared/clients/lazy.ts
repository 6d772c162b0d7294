import { captured } from '../tracing.ts';

const resets = new Set<() => void>();

/**
 * A client made on first use and kept for the process. Each client lives in its own module, so a
 * function's bundle loads only the SDK packages of the clients it uses (an unused module is dropped,
 * and with it its `@aws-sdk/*` import: each one costs cold-start time).
 */
export function lazyClient<T extends { destroy(): void }>(make: () => T): () => T {
  let client: T | undefined;
  resets.add(() => {
    client?.destroy();
    client = undefined;
  });
  // Made inside an invocation, after the tracer (if on) is loaded: its calls become X-Ray subsegments.
  return () => (client ??= captured(make()));
}

/** Registers what a module caches itself (a client made from a dynamically imported SDK) to be dropped with the others. */
export function onReset(reset: () => void): void {
  resets.add(reset);
}

/** Drops cached clients (after the configuration changed, e.g. a test pointing at another table). */
export function resetClients(): void {
  for (const reset of resets) reset();
}
