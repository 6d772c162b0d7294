import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { transact, CONCURRENT_CHANGE } from '#db/transact';
import { CONTENTION } from '#db/retry';
import { invalid } from '#shared/errors';

// DynamoDB Local never reports TransactionConflict (real DynamoDB does under contention), so this path is exercised with a mock.
const dynamo = mockClient(DynamoDBDocumentClient);
const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: 'cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
const steps = [
  {
    Put: { TableName: 't', Item: { PK: 'a', SK: 'a' }, ConditionExpression: 'attribute_not_exists(PK)' },
    failWith: invalid('Name taken'),
  },
  { Put: { TableName: 't', Item: { PK: 'b', SK: 'b' } } },
];

describe('transact', () => {
  beforeEach(() => dynamo.reset());

  it("throws the failing step's refusal", async () => {
    dynamo.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    await expect(transact(steps)).rejects.toMatchObject({ kind: 'invalid', detail: 'Name taken' });
  });

  it('answers 409 when a condition without a refusal fails', async () => {
    dynamo.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed'));
    await expect(transact(steps)).rejects.toMatchObject({
      kind: 'conflict',
      detail: CONCURRENT_CHANGE,
      retryAfterSeconds: 1,
    });
  });

  it('retries a transaction conflict and succeeds when it clears', async () => {
    dynamo.on(TransactWriteCommand).rejectsOnce(cancelled('TransactionConflict', 'None')).resolves({});
    await transact(steps);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(2);
    expect(dynamo.commandCalls(TransactWriteCommand)[0].args[0].input.TransactItems![0]).not.toHaveProperty('failWith');
  });

  it('answers 409 with Retry-After, not 500, when the conflict persists through the contention policy', async () => {
    dynamo.on(TransactWriteCommand).rejects(cancelled('TransactionConflict', 'None'));
    await expect(transact(steps)).rejects.toMatchObject({
      kind: 'conflict',
      detail: CONCURRENT_CHANGE,
      retryAfterSeconds: 1,
    });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(CONTENTION.attempts);
  });
});
