import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { unprocessable } from '#shared/errors';

/**
 * Paged reads of a time-ordered partition for lists that answer a plain JSON array: the cursor of
 * the next page travels in the `X-Next-Cursor` response header and comes back as the `cursor` query
 * parameter (`shared/http/paging.ts`). The cursor is the last answered item's key, base64url JSON: opaque to clients, and
 * checked on the way back (it must name the partition being read), so a tampered or foreign cursor
 * is a 422 and never a read elsewhere.
 */
export const INVALID_CURSOR = 'Invalid cursor';

type PageKey = { PK: string; SK: string };

export const encodeCursor = (key: PageKey): string => Buffer.from(JSON.stringify({ PK: key.PK, SK: key.SK })).toString('base64url');

/**
 * The key a cursor stands for, if it is exactly one this module wrote (canonical encoding) for the
 * partition `pk`, with a sort key of the partition's form (`sk`); otherwise 422 on the `cursor`
 * query parameter. (A well-formed sort key of the caller's own partition only moves where the page
 * starts within what the caller may read anyway.)
 */
export function decodeCursor(cursor: string, pk: string, sk: RegExp = /^.{1,1024}$/): PageKey {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (key && typeof key === 'object' && !Array.isArray(key)) {
      const { PK, SK, ...rest } = key as Record<string, unknown>;
      const valid = PK === pk && typeof SK === 'string' && sk.test(SK) && !Object.keys(rest).length;
      if (valid && encodeCursor({ PK, SK }) === cursor) return { PK, SK };
    }
  } catch {
    /* not base64url JSON: refused below */
  }
  throw unprocessable([{ loc: ['query', 'cursor'], msg: INVALID_CURSOR, type: 'value_error' }]);
}

/**
 * One page of a partition, newest first (sort keys that order by time): at most `limit` items after
 * the cursor's, and the cursor of the next page when there is more (one item more is read to know).
 */
export async function newestPage<T = Record<string, unknown>>(pk: string, input: { limit: number; cursor?: string; sk?: RegExp }): Promise<{ items: T[]; next?: string }> {
  const start = input.cursor ? decodeCursor(input.cursor, pk, input.sk) : undefined;
  const out = await ddb().send(
    new QueryCommand({
      TableName: config().TABLE_NAME,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ScanIndexForward: false,
      ConsistentRead: true,
      Limit: input.limit + 1,
      ExclusiveStartKey: start,
    }),
  );
  const items = (out.Items ?? []) as (T & PageKey)[];
  const page = items.slice(0, input.limit);
  const last = page[page.length - 1];
  return { items: page, next: items.length > input.limit && last ? encodeCursor(last) : undefined };
}
