import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { appContext } from '#shared/context';
import { invocation } from '#shared/observe';
import { applyTopologyChanges, topologyChangesOf } from '#domain/catalog';

/**
 * The table's stream (filtered to the drawn kinds' items: services, servers, networks, groups,
 * connections, links) into the environments' topology snapshots: each record names an item by its
 * keys; the keeper reads the item as it is now and rewrites its bucket. A failed batch is retried by
 * the stream (bisected); one that keeps failing leaves its snapshot's head behind, which its next
 * read rebuilds.
 */
export const handler = (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> =>
  invocation({ dimensions: { stream: 'topology' } }, async () => {
    const changes = topologyChangesOf(
      event.Records.map((r) => ({ PK: r.dynamodb?.Keys?.PK?.S, SK: r.dynamodb?.Keys?.SK?.S })),
    );
    await applyTopologyChanges(changes, appContext().clock.now());
    return { batchItemFailures: [] };
  });
