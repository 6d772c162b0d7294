/**
 * Names of AWS errors that mean "throttled, failed or timed out: not done, try again later"; the
 * SDK's own classification (@smithy/service-error-classification: throttling and transient codes),
 * with DynamoDB's and the other services' 5xx names.
 */
const OUTAGES = new Set([
  // throttling
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'LimitExceededException',
  'BandwidthLimitExceeded',
  'SlowDown',
  'PriorRequestNotComplete',
  // a TransactWriteItems with the same token still running (DynamoDB): its outcome is not known yet
  'TransactionInProgressException',
  // timeouts and failures
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'InternalServerError',
  'InternalFailure',
  'InternalError',
]);
const NETWORK = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN']);
/** Why DynamoDB cancels a transaction when it is busy (not because a condition failed). */
const BUSY_REASONS = new Set([
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
  'TransactionConflict',
]);

type AwsError = {
  name?: string;
  code?: string;
  $fault?: string;
  $retryable?: { throttling?: boolean };
  $metadata?: { httpStatusCode?: number };
  CancellationReasons?: { Code?: string }[];
};

/**
 * An AWS service that throttled, failed or timed out (through all of the SDK's retries, when it
 * reaches us): the call did not complete, and trying again later is right, not a bug. The pipeline
 * answers it 503 with Retry-After; writes that must not be lost retry it a little longer. A
 * transaction cancelled only because DynamoDB was busy (throttled, or still conflicting after the
 * transaction's own retries) is one too; one cancelled by a failed condition is not.
 */
export function isOutage(err: unknown): boolean {
  const e = err as AwsError | undefined;
  if (!e || typeof e !== 'object') return false;
  const status = e.$metadata?.httpStatusCode ?? 0;
  if (
    OUTAGES.has(e.name ?? '') ||
    NETWORK.has(e.code ?? '') ||
    e.$retryable?.throttling ||
    e.$fault === 'server' ||
    status === 429 ||
    status >= 500
  )
    return true;
  const reasons =
    e.name === 'TransactionCanceledException'
      ? (e.CancellationReasons ?? []).map((r) => r.Code ?? 'None').filter((c) => c !== 'None')
      : [];
  return reasons.length > 0 && reasons.every((c) => BUSY_REASONS.has(c));
}

/** DynamoDB left part of a batch unprocessed through all our retries: it is throttling us (an outage, see isOutage). */
export class LeftUnprocessed extends Error {
  override readonly name = 'LeftUnprocessed';
  readonly $retryable = { throttling: true };
}
