import { AsyncLocalStorage } from 'node:async_hooks';

/** One business or route metric counted while an invocation runs; flushed with the others at its end. */
export interface CountedMetric {
  name: string;
  unit: 'Count' | 'Milliseconds';
  value: number;
}

/**
 * What one invocation (one HTTP request, one worker batch, one sweep) knows about itself: the keys every
 * log line written while it runs carries, and the metrics counted during it. Kept in AsyncLocalStorage, not
 * in the logger's own keys: the local runtime serves many requests at once in one process, and a warm
 * Lambda serves one after another, so nothing may leak from one into the next.
 */
export interface InvocationScope {
  /** The API Gateway request id; the SQS message id inside a worker's record. */
  correlation_id?: string;
  cold_start: boolean;
  /** The metric dimensions of this invocation (route, or worker). */
  dimensions: Record<string, string>;
  metrics: CountedMetric[];
  /**
   * The projects an API key's token is limited to, set by authentication: the project
   * access check (tenancy's `loadAccess`) reads it here rather than from `ctx`, which its ~100 callers
   * do not pass down. Null or absent: no limit (a person, a worker, a tool).
   */
  key_projects?: readonly string[] | null;
}

const store = new AsyncLocalStorage<InvocationScope>();
let invocations = 0;

/** The running invocation's scope, if any (a log line written outside one carries no correlation id). */
export const currentScope = (): InvocationScope | undefined => store.getStore();

/** A fresh scope: the first one in this process is the cold start. */
export function newScope(correlationId?: string, dimensions: Record<string, string> = {}): InvocationScope {
  return { correlation_id: correlationId, cold_start: invocations++ === 0, dimensions, metrics: [] };
}

export const runInScope = <T>(scope: InvocationScope, fn: () => T): T => store.run(scope, fn);
