import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { forwardStreamChanges } from '#shared/outbox';
import { invocation } from '#shared/observe';

/** The table's stream (filtered to inserted outbox items): each domain event goes to the events queue; partial batch failures. */
export const handler = (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> =>
  invocation({ dimensions: { stream: 'outbox' } }, () => forward(event));

async function forward(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const failed = await forwardStreamChanges(
    event.Records.map((r) => ({
      sequenceNumber: r.dynamodb?.SequenceNumber ?? '',
      eventName: r.eventName,
      newImage: r.dynamodb?.NewImage ? unmarshall(r.dynamodb.NewImage as Record<string, AttributeValue>) : undefined,
    })),
  );
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
}
