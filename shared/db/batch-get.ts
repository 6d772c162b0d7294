import { BatchGetCommand, TransactGetCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { forEachAtMost } from '#shared/concurrency';
import { retry } from './retry.ts';
import { LeftUnprocessed } from '#shared/outage';

export type Key = { PK: string; SK: string };

/** BatchGet requests in flight at once (the SDK's connection pool holds 50). */
const IN_FLIGHT = 16;

/**
 * Strongly consistent BatchGet of up to 100 keys; unprocessed keys are retried. Missing items are absent from the map.
 * `table` is the configured one but for the restore of a project, which reads a restored copy (lifecycle/project-restore).
 */
export async function batchGet(keyList: Key[], table?: string): Promise<Map<string, Record<string, unknown>>> {
  const TableName = table ?? config().TABLE_NAME;
  const found = new Map<string, Record<string, unknown>>();
  const unique = [...new Map(keyList.map((k) => [keyId(k), k])).values()];
  // Chunks of 100 keys (DynamoDB's limit), up to IN_FLIGHT at once: one round trip for a page, and a
  // whole list of tens of thousands does not open hundreds of requests together.
  const chunks: Key[][] = [];
  for (let i = 0; i < unique.length; i += 100) chunks.push(unique.slice(i, i + 100));
  const read = async (chunk: Key[]) => {
    let pending: Record<string, unknown>[] = chunk;
    // DynamoDB may leave keys unprocessed under load: ask again for those, backing off.
    await retry(
      async () => {
        const out = await ddb().send(
          new BatchGetCommand({ RequestItems: { [TableName]: { Keys: pending, ConsistentRead: true } } }),
        );
        for (const item of out.Responses?.[TableName] ?? []) found.set(keyId(item as Key), item);
        pending = (out.UnprocessedKeys?.[TableName]?.Keys ?? []) as Record<string, unknown>[];
        if (pending.length) throw new LeftUnprocessed();
      },
      { attempts: 10, when: (err) => err instanceof LeftUnprocessed, baseMs: 20 },
    );
  };
  await forEachAtMost(chunks, IN_FLIGHT, read);
  return found;
}
export const keyId = (k: Key) => `${k.PK}|${k.SK}`;

/**
 * The items at up to 100 keys as of one instant (TransactGetItems): a BatchGet reads each item on its own,
 * so it can see one item a transaction wrote and not another; a decision that compares items written
 * together (an invitation accepted with the account it created) reads them through this. One round trip.
 */
export async function snapshotGet(keyList: Key[]): Promise<Map<string, Record<string, unknown>>> {
  const TableName = config().TABLE_NAME;
  const out = await ddb().send(
    new TransactGetCommand({ TransactItems: keyList.map((Key) => ({ Get: { TableName, Key } })) }),
  );
  const found = new Map<string, Record<string, unknown>>();
  for (const { Item: item } of out.Responses ?? []) if (item) found.set(keyId(item as Key), item);
  return found;
}
