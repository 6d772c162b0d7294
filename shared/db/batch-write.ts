import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import type { Key } from './batch-get';
import { retry } from './retry';
import { IF_ABSENT } from './steps';
import type { TransactStep } from './transact';

/** DynamoDB's BatchWriteItem limit. */
const BATCH_WRITE_ITEMS = 25;
/** Requests in flight at once: DynamoDB serves a batch's requests in parallel; more only queues. */
const IN_FLIGHT = 4;

type Request = { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: Key } };

class Unprocessed extends Error {}

async function send(requests: Request[]): Promise<void> {
  const TableName = config().TABLE_NAME;
  let pending = requests;
  // DynamoDB may leave items unprocessed under load: send those again, backing off.
  await retry(
    async () => {
      const out = await ddb().send(new BatchWriteCommand({ RequestItems: { [TableName]: pending } }));
      pending = (out.UnprocessedItems?.[TableName] ?? []) as Request[];
      if (pending.length) throw new Unprocessed();
    },
    { attempts: 10, when: (err) => err instanceof Unprocessed, baseMs: 20 },
  );
}

async function batchWrite(requests: Request[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const slice = requests.slice(next, (next += BATCH_WRITE_ITEMS));
      await send(slice);
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, Math.ceil(requests.length / BATCH_WRITE_ITEMS)) }, worker));
}

/** Puts items whatever was there (BatchWriteItem: no conditions), 25 a request, a few requests at a time. */
export const putItems = (items: Record<string, unknown>[]) => batchWrite(items.map((Item) => ({ PutRequest: { Item } })));

/** Deletes items by key (BatchWriteItem), 25 a request. */
export const deleteItems = (keyList: Key[]) => batchWrite(keyList.map((Key) => ({ DeleteRequest: { Key } })));

/**
 * A transaction step that needs no transaction: a put with no condition, or the put of a new item
 * under a fresh key (a new id) whose only condition is that the key is free and which has no refusal
 * of its own (a name claim has one: it stays in a transaction). Such items can be written by
 * BatchWriteItem (half the write units of a transaction, no 100-item limit).
 */
export function freshPutOf(step: TransactStep): Record<string, unknown> | undefined {
  const put = step.Put;
  if (!put || step.failWith || step.Update || step.Delete || step.ConditionCheck) return undefined;
  if (put.ExpressionAttributeValues || put.ExpressionAttributeNames) return undefined;
  if (put.ConditionExpression && put.ConditionExpression !== IF_ABSENT.ConditionExpression) return undefined;
  return put.Item;
}
