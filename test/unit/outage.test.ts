import { describe, expect, it } from 'vitest';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { isOutage, LeftUnprocessed } from '#shared/outage';

const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: 'cancelled',
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
const aws = (name: string, httpStatusCode?: number) =>
  Object.assign(new Error(name), { name, $metadata: { httpStatusCode } });

describe('isOutage: what the pipeline answers 503 with Retry-After', () => {
  it.each([
    ['a throttle', aws('ProvisionedThroughputExceededException', 400)],
    ['a transaction still running under the same token', aws('TransactionInProgressException', 400)],
    ['a timeout', aws('TimeoutError')],
    ['any 5xx', aws('SomethingNew', 502)],
    ['a 429', aws('TooManyRequests', 429)],
    ['a transaction cancelled because DynamoDB throttled', cancelled('None', 'ThrottlingError')],
    ['a transaction still conflicting after its retries', cancelled('TransactionConflict', 'None')],
    ['keys left unprocessed through every retry', new LeftUnprocessed()],
    ['a reset connection', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })],
  ])('%s is one', (_what, err) => expect(isOutage(err)).toBe(true));

  it.each([
    ['a failed condition', cancelled('ConditionalCheckFailed', 'ThrottlingError')],
    ['a validation error', aws('ValidationException', 400)],
    ['a bug', new TypeError('x is undefined')],
    ['nothing', undefined],
  ])('%s is not', (_what, err) => expect(isOutage(err)).toBe(false));
});
