import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { retry } from './retry';

export type Key = { PK: string; SK: string };

/** Strongly consistent BatchGet of up to 100 keys; unprocessed keys are retried. Missing items are absent from the map. */
export async function batchGet(keyList: Key[]): Promise<Map<string, Record<string, unknown>>> {
  const TableName = config().TABLE_NAME;
  const found = new Map<string, Record<string, unknown>>();
  const unique = [...new Map(keyList.map((k) => [keyId(k), k])).values()];
  // Chunks of 100 keys (DynamoDB's limit) in parallel: one round trip however many keys.
  const chunks: Key[][] = [];
  for (let i = 0; i < unique.length; i += 100) chunks.push(unique.slice(i, i + 100));
  await Promise.all(chunks.map(async (chunk) => {
    let pending: Record<string, unknown>[] = chunk;
    // DynamoDB may leave keys unprocessed under load: ask again for those, backing off.
    await retry(
      async () => {
        const out = await ddb().send(new BatchGetCommand({ RequestItems: { [TableName]: { Keys: pending, ConsistentRead: true } } }));
        for (const item of out.Responses?.[TableName] ?? []) found.set(keyId(item as Key), item);
        pending = (out.UnprocessedKeys?.[TableName]?.Keys ?? []) as Record<string, unknown>[];
        if (pending.length) throw new Unprocessed();
      },
      { attempts: 10, when: (err) => err instanceof Unprocessed, baseMs: 20 },
    );
  }));
  return found;
}
export const keyId = (k: Key) => `${k.PK}|${k.SK}`;

class Unprocessed extends Error {}
