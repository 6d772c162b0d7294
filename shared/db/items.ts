import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import type { Key } from './batch-get.ts';
import { grouped } from './condition.ts';
import { concurrentChange, transact } from './transact.ts';

/**
 * Single-item reads and writes on the one table (outside transactions). Every conditional one goes
 * through `conditionalPut`, `conditionalUpdate` or `conditionalDelete`, which answer exactly what
 * happened even when the SDK retried the call after an attempt that took effect (see `exactly`).
 */

/** One item, strongly consistent, or undefined. */
export async function getItem<T = Record<string, unknown>>(key: Key): Promise<T | undefined> {
  const out = await ddb().send(new GetCommand({ TableName: config().TABLE_NAME, Key: key, ConsistentRead: true }));
  return out.Item as T | undefined;
}

/** Writes an item, whatever was there (the same effect however often the SDK sends it). A condition: `conditionalPut`. */
export async function putItem(item: Record<string, unknown>): Promise<void> {
  await ddb().send(new PutCommand({ TableName: config().TABLE_NAME, Item: item }));
}

/** Removes an item; answers what was there (undefined when nothing was, or when an earlier attempt of this call removed it). */
export async function deleteItem(key: Key): Promise<Record<string, unknown> | undefined> {
  const out = await ddb().send(
    new DeleteCommand({ TableName: config().TABLE_NAME, Key: key, ReturnValues: 'ALL_OLD' }),
  );
  return out.Attributes;
}

export type Update = Omit<UpdateCommandInput, 'TableName' | 'Key'>;

/**
 * An update that must happen, with no condition or only `IF_EXISTS` (which its own write keeps
 * true, so an SDK retry after it took effect passes again); any other condition: `conditionalUpdate`.
 * A failed condition is an error. Answers the attributes `ReturnValues` asks for.
 */
export async function updateItem(
  key: Key,
  update: Update & { ConditionExpression?: 'attribute_exists(PK)' },
): Promise<Record<string, unknown> | undefined> {
  const out = await ddb().send(new UpdateCommand({ TableName: config().TABLE_NAME, Key: key, ...update }));
  return out.Attributes;
}

/** What a conditional write did: applied (with the attributes `ReturnValues` asked for), or not (with the item as it was, when asked). */
export type Outcome = { ok: true; item: Record<string, unknown> } | { ok: false; old?: Record<string, unknown> };

type Condition = {
  ConditionExpression: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
};

/** The attribute each conditional single write stamps with its own token (dropped from what it answers; entities' decode never reads it). */
const WRITE_TOKEN = 'write_token';
const TOKEN_NAME = '#write_token';
const TOKEN_VALUE = ':write_token';

const withoutToken = ({ [WRITE_TOKEN]: _t, ...item }: Record<string, unknown>) => item;

/**
 * One conditional single-item write, exact when the SDK retries it. An attempt can take
 * effect and then time out; the SDK sends the same call again, whose condition now fails on its own
 * write (an item "already there", a code "already used", a status "already moved"), which would be
 * read as a lost race. So the write stamps the item with a token of its own and its condition adds
 * "not stamped with this token": a retry after its effect fails only that, and the item handed
 * back (`ALL_OLD`) carries the token, so the write is answered as applied, with the item as it left
 * it. Free (no extra read or capacity), unlike a one-item transaction with a ClientRequestToken.
 */
async function exactly(
  token: string,
  condition: Condition,
  send: (
    guard: Condition & { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' },
  ) => Promise<{ Attributes?: Record<string, unknown> }>,
): Promise<Outcome> {
  const guard = {
    ConditionExpression: `${grouped(condition.ConditionExpression)} AND (attribute_not_exists(${TOKEN_NAME}) OR ${TOKEN_NAME} <> ${TOKEN_VALUE})`,
    ExpressionAttributeNames: { ...condition.ExpressionAttributeNames, [TOKEN_NAME]: WRITE_TOKEN },
    ExpressionAttributeValues: { ...condition.ExpressionAttributeValues, [TOKEN_VALUE]: token },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
  try {
    return { ok: true, item: withoutToken((await send(guard)).Attributes ?? {}) };
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
    const old = err.Item ? unmarshall(err.Item) : undefined;
    if (old?.[WRITE_TOKEN] === token) return { ok: true, item: withoutToken(old) };
    return { ok: false, old: old && withoutToken(old) };
  }
}

/** `SET` of the write's token added to an update expression (one SET clause per expression). */
const stamping = (expression: string) =>
  /(^|\s)SET\s/i.test(expression)
    ? expression.replace(/(^|\s)SET\s/i, `$1SET ${TOKEN_NAME} = ${TOKEN_VALUE}, `)
    : `SET ${TOKEN_NAME} = ${TOKEN_VALUE} ${expression}`;

/**
 * The one conditional update: applies `update` when its ConditionExpression holds. A failed
 * condition is an answer, not an error; the caller decides what it means (a lost race, a spent
 * token, a full window), and `old` is the item as it was. Applied by an earlier attempt of the same
 * call, it answers applied with the whole item as written (more than `UPDATED_NEW` asks for).
 */
export async function conditionalUpdate(
  key: Key,
  {
    ConditionExpression,
    ExpressionAttributeNames,
    ExpressionAttributeValues,
    UpdateExpression,
    ...rest
  }: Update & { ConditionExpression: string; UpdateExpression: string },
): Promise<Outcome> {
  const token = randomUUID();
  return exactly(token, { ConditionExpression, ExpressionAttributeNames, ExpressionAttributeValues }, (guard) =>
    ddb().send(
      new UpdateCommand({
        TableName: config().TABLE_NAME,
        Key: key,
        ...rest,
        UpdateExpression: stamping(UpdateExpression),
        ...guard,
      }),
    ),
  );
}

/** Puts an item when its ConditionExpression holds; answers whether it did (exact through the SDK's retries). */
export async function conditionalPut(item: Record<string, unknown>, condition: Condition): Promise<boolean> {
  const token = randomUUID();
  const out = await exactly(token, condition, (guard) =>
    ddb().send(new PutCommand({ TableName: config().TABLE_NAME, Item: { ...item, [WRITE_TOKEN]: token }, ...guard })),
  );
  return out.ok;
}

/**
 * Deletes an item when its ConditionExpression holds; answers whether it did. A deleted item keeps
 * no token, so this one is a one-item transaction, whose ClientRequestToken DynamoDB answers "done"
 * when a retried attempt had taken effect (twice the write capacity; only rare deletes use it).
 */
export async function conditionalDelete(key: Key, condition: Condition): Promise<boolean> {
  const refused = concurrentChange();
  try {
    await transact([{ Delete: { Key: key, ...condition }, failWith: refused }]);
    return true;
  } catch (err) {
    if (err === refused) return false;
    throw err;
  }
}
