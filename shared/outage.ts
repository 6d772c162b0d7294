const OUTAGES = new Set(['TimeoutError', 'RequestTimeout', 'ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded', 'SlowDown', 'ServiceUnavailable', 'InternalServerError', 'InternalFailure']);
const NETWORK = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE']);

/**
 * An AWS service that throttled, failed or timed out (through all of the SDK's retries, when it
 * reaches us): the call did not complete, and trying again later is right, not a bug. The pipeline
 * answers it 503 with Retry-After; writes that must not be lost retry it a little longer.
 */
export function isOutage(err: unknown): boolean {
  const e = err as { name?: string; code?: string; $fault?: string; $retryable?: { throttling?: boolean } } | undefined;
  return Boolean(e && (OUTAGES.has(e.name ?? '') || NETWORK.has(e.code ?? '') || e.$retryable?.throttling || e.$fault === 'server'));
}
