import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { forwardStreamChanges } from '#shared/outbox';
import { liveFromStream } from '#domain/live';
import { appContext } from '#shared/context';
import { invocation } from '#shared/observe';
import { streamImage as image } from '#shared/stream-image';

/**
 * The table's stream (filtered to inserted outbox items and the items live changes read): each domain
 * event goes to the events queue, and each catalog change to the environment's live followers; partial
 * batch failures (the earliest record either part failed on).
 */
export const handler = (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> =>
  invocation({ dimensions: { stream: 'outbox' } }, () => forward(event));

async function forward(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const changes = event.Records.map((r) => ({
    sequenceNumber: r.dynamodb?.SequenceNumber ?? '',
    eventName: r.eventName,
    newImage: image(r.dynamodb?.NewImage),
    oldImage: image(r.dynamodb?.OldImage),
  }));
  const [failed, liveFailed] = await Promise.all([
    forwardStreamChanges(changes),
    liveFromStream(appContext(), changes),
  ]);
  const first = [...failed, ...(liveFailed ? [liveFailed] : [])].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))[0];
  return { batchItemFailures: first ? [{ itemIdentifier: first }] : [] };
}
