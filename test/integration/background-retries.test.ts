import { afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { useTestStack } from '../helpers/stack.ts';
import { faults } from '../helpers/faults.ts';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { newScope, runInScope } from '#shared/invocation';
import { faultCounts } from '#shared/faults';

useTestStack({}, { withoutHttp: true });
afterEach(() => faults(''));

const read = () =>
  ddb().send(new GetCommand({ TableName: config().TABLE_NAME, Key: { PK: `TEST#${randomUUID()}`, SK: 'X' } }));
const asWorker = <T>(fn: () => Promise<T>) => runInScope(newScope(undefined, { worker: 'test' }), fn);
const attemptsOf = async (call: Promise<unknown>) => {
  const err = (await call.then(
    () => undefined,
    (e: unknown) => e,
  )) as { name?: string; $metadata?: { attempts?: number } } | undefined;
  return { name: err?.name, attempts: err?.$metadata?.attempts };
};

describe('how long an AWS call is retried (shared/clients/background-retries.ts)', () => {
  it("through an outage a worker's call makes 10 attempts, a request's 4 (then the pipeline answers 503)", async () => {
    faults('ddb.unavailable:1');
    expect(await attemptsOf(asWorker(read))).toEqual({ name: 'ServiceUnavailable', attempts: 10 });
    expect(await attemptsOf(read())).toEqual({ name: 'ServiceUnavailable', attempts: 4 });
    expect(faultCounts()['ddb.unavailable']).toBe(10 + 4);
  }, 60_000);

  it("a request's call is still retried after many failed ones: no retry quota shared by the process runs dry", async () => {
    // The SDK's standard strategy spends 14 of its 500 tokens a retry: twelve calls failing 4 times empty it, and
    // then a create whose write took effect but whose answer was lost gets no retry with its transaction's token.
    faults('ddb.unavailable:1');
    const attempts: (number | undefined)[] = [];
    for (let i = 0; i < 20; i++) attempts.push((await attemptsOf(read())).attempts);
    expect(attempts).toEqual(Array(20).fill(4));
  }, 60_000);

  it("a worker's call refused by DynamoDB (a failed condition) is not retried", async () => {
    const put = () =>
      ddb().send(
        new PutCommand({
          TableName: config().TABLE_NAME,
          Item: { PK: 'TEST#refused', SK: 'X' },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    await asWorker(put);
    expect(await attemptsOf(asWorker(put))).toEqual({ name: 'ConditionalCheckFailedException', attempts: 1 });
  });
});
