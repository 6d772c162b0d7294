import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { keys } from './keys';

/** Every item a Query matches, following `LastEvaluatedKey` through all pages. */
export async function queryAll<T = Record<string, unknown>>(input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): Promise<T[]> {
  const items: T[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await ddb().send(new QueryCommand({ TableName: config().TABLE_NAME, ...input, ExclusiveStartKey }));
    items.push(...((out.Items ?? []) as T[]));
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/** Every item of a partition whose sort key starts with `prefix` ('' for all), strongly consistent, optionally projected and filtered. */
export function queryPartition<T = Record<string, unknown>>(
  pk: string,
  prefix: string,
  opts: { projection?: string[]; filter?: string; values?: Record<string, unknown> } = {},
): Promise<T[]> {
  const names: Record<string, string> = {};
  const projection = opts.projection?.map((attr, i) => ((names[`#p${i}`] = attr), `#p${i}`)).join(', ');
  return queryAll<T>({
    // An empty prefix means the whole partition (DynamoDB refuses begins_with on an empty string).
    KeyConditionExpression: prefix ? 'PK = :pk AND begins_with(SK, :sk)' : 'PK = :pk',
    ExpressionAttributeValues: { ':pk': pk, ...(prefix ? { ':sk': prefix } : {}), ...opts.values },
    ...(projection ? { ProjectionExpression: projection } : {}),
    ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
    ...(opts.filter ? { FilterExpression: opts.filter } : {}),
    ConsistentRead: true,
  });
}

/** Items under one sort-key prefix of a project's partition. */
export const queryPrefix = <T = Record<string, unknown>>(projectId: string, prefix: string, opts?: Parameters<typeof queryPartition>[2]) =>
  queryPartition<T>(keys.projectPK(projectId), prefix, opts);

/** The newest items of a partition under `prefix` (sort keys that order by time), at most `limit` of those passing `filter`. */
export async function queryNewest<T = Record<string, unknown>>(pk: string, prefix: string, opts: { limit: number; filter?: string; values?: Record<string, unknown> }): Promise<T[]> {
  const items: T[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await ddb().send(
      new QueryCommand({
        TableName: config().TABLE_NAME,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
        ExpressionAttributeValues: { ':pk': pk, ':sk': prefix, ...opts.values },
        ...(opts.filter ? { FilterExpression: opts.filter } : {}),
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: opts.limit,
        ExclusiveStartKey,
      }),
    );
    items.push(...((out.Items ?? []) as T[]));
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey && items.length < opts.limit);
  return items.slice(0, opts.limit);
}
