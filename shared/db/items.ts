import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import type { Key } from './batch-get';

/** Single-item reads and writes on the one table (outside transactions). */

/** One item, strongly consistent, or undefined. */
export async function getItem<T = Record<string, unknown>>(key: Key): Promise<T | undefined> {
  const out = await ddb().send(new GetCommand({ TableName: config().TABLE_NAME, Key: key, ConsistentRead: true }));
  return out.Item as T | undefined;
}

/** Writes an item; with a condition (e.g. IF_ABSENT) that must hold, or the write fails. */
export async function putItem(item: Record<string, unknown>, condition?: { ConditionExpression: string; ExpressionAttributeValues?: Record<string, unknown> }): Promise<void> {
  await ddb().send(new PutCommand({ TableName: config().TABLE_NAME, Item: item, ...condition }));
}

/** Removes an item; answers what was there (undefined when nothing was). */
export async function deleteItem(key: Key): Promise<Record<string, unknown> | undefined> {
  const out = await ddb().send(new DeleteCommand({ TableName: config().TABLE_NAME, Key: key, ReturnValues: 'ALL_OLD' }));
  return out.Attributes;
}

export type Update = Omit<UpdateCommandInput, 'TableName' | 'Key'>;

/** An update that must happen (a failed condition is an error). Answers the attributes `ReturnValues` asks for. */
export async function updateItem(key: Key, update: Update): Promise<Record<string, unknown> | undefined> {
  const out = await ddb().send(new UpdateCommand({ TableName: config().TABLE_NAME, Key: key, ...update }));
  return out.Attributes;
}

/** What a conditional write did: applied (with the attributes `ReturnValues` asked for), or not (with the item as it was, when asked). */
export type Outcome = { ok: true; item: Record<string, unknown> } | { ok: false; old?: Record<string, unknown> };

/**
 * The one conditional update: applies `update` when its ConditionExpression holds. A failed
 * condition is an answer, not an error; the caller decides what it means (a lost race, a spent
 * token, a full window). `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'` hands back the item as it was.
 */
export async function conditionalUpdate(key: Key, update: Update): Promise<Outcome> {
  try {
    return { ok: true, item: (await updateItem(key, update)) ?? {} };
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
    return { ok: false, old: err.Item ? unmarshall(err.Item) : undefined };
  }
}

/** Runs a conditional write; answers whether its condition held (a failed condition is an answer, not an error). */
async function whenHolds(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

type Condition = { ConditionExpression: string; ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> };

/** Puts an item when its ConditionExpression holds; answers whether it did. */
export const conditionalPut = (item: Record<string, unknown>, condition: Condition): Promise<boolean> =>
  whenHolds(() => ddb().send(new PutCommand({ TableName: config().TABLE_NAME, Item: item, ...condition })));

/** Deletes an item when its ConditionExpression holds; answers whether it did. */
export const conditionalDelete = (key: Key, condition: Condition): Promise<boolean> =>
  whenHolds(() => ddb().send(new DeleteCommand({ TableName: config().TABLE_NAME, Key: key, ...condition })));
