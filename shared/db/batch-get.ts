import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';

export type Key = { PK: string; SK: string };

/** Strongly consistent BatchGet of up to 100 keys; unprocessed keys are retried. Missing items are absent from the map. */
export async function batchGet(keyList: Key[]): Promise<Map<string, Record<string, unknown>>> {
  const TableName = config().TABLE_NAME;
  const found = new Map<string, Record<string, unknown>>();
  const unique = [...new Map(keyList.map((k) => [`${k.PK}|${k.SK}`, k])).values()];
  for (let i = 0; i < unique.length; i += 100) {
    let pending: Record<string, unknown>[] = unique.slice(i, i + 100);
    for (let attempt = 0; pending.length; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 10 * 2 ** attempt));
      const out = await ddb().send(new BatchGetCommand({ RequestItems: { [TableName]: { Keys: pending, ConsistentRead: true } } }));
      for (const item of out.Responses?.[TableName] ?? []) found.set(`${item.PK}|${item.SK}`, item);
      pending = (out.UnprocessedKeys?.[TableName]?.Keys ?? []) as Record<string, unknown>[];
    }
  }
  return found;
}
export const keyId = (k: Key) => `${k.PK}|${k.SK}`;
