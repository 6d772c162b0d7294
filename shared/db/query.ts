import { QueryCommand, ScanCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { keys } from './keys';

type QueryInput = Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>;

/** The items a Query matches, one DynamoDB page (at most 1 MB) at a time, following `LastEvaluatedKey`. */
export async function* queryPages<T = Record<string, unknown>>(input: QueryInput, table?: string): AsyncGenerator<T[]> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await ddb().send(
      new QueryCommand({ TableName: table ?? config().TABLE_NAME, ...input, ExclusiveStartKey }),
    );
    yield (out.Items ?? []) as T[];
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}

/** Every item a Query matches, following `LastEvaluatedKey` through all pages. */
export async function queryAll<T = Record<string, unknown>>(input: QueryInput, table?: string): Promise<T[]> {
  const items: T[] = [];
  for await (const page of queryPages<T>(input, table)) items.push(...page);
  return items;
}

/** `table`: the configured one but for the restore of a project, which reads a restored copy (lifecycle/project-restore). */
type PartitionOptions = { projection?: string[]; filter?: string; values?: Record<string, unknown>; table?: string };

/** The Query of a partition's items whose sort key starts with `prefix` ('' for all), strongly consistent, optionally projected and filtered. */
function partitionQuery(pk: string, prefix: string, opts: PartitionOptions): QueryInput {
  const names: Record<string, string> = {};
  const projection = opts.projection?.map((attr, i) => ((names[`#p${i}`] = attr), `#p${i}`)).join(', ');
  return {
    // An empty prefix means the whole partition (DynamoDB refuses begins_with on an empty string).
    KeyConditionExpression: prefix ? 'PK = :pk AND begins_with(SK, :sk)' : 'PK = :pk',
    ExpressionAttributeValues: { ':pk': pk, ...(prefix ? { ':sk': prefix } : {}), ...opts.values },
    ...(projection ? { ProjectionExpression: projection } : {}),
    ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
    ...(opts.filter ? { FilterExpression: opts.filter } : {}),
    ConsistentRead: true,
  };
}

/** Every item of a partition whose sort key starts with `prefix` ('' for all), strongly consistent, optionally projected and filtered. */
export const queryPartition = <T = Record<string, unknown>>(
  pk: string,
  prefix: string,
  opts: PartitionOptions = {},
): Promise<T[]> => queryAll<T>(partitionQuery(pk, prefix, opts), opts.table);

/** Every item of a partition whose sort key lies between `from` and `to` (both included), in order, strongly consistent. */
export const queryRange = <T = Record<string, unknown>>(pk: string, from: string, to: string): Promise<T[]> =>
  queryAll<T>({
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': pk, ':from': from, ':to': to },
    ConsistentRead: true,
  });

/** Items under one sort-key prefix of a project's partition. */
export const queryPrefix = <T = Record<string, unknown>>(projectId: string, prefix: string, opts?: PartitionOptions) =>
  queryPartition<T>(keys.projectPK(projectId), prefix, opts);

/** The same items page by page (sort-key order), so that a reader of a large environment never holds them all (the export). */
export const queryPrefixPages = <T = Record<string, unknown>>(
  projectId: string,
  prefix: string,
  opts: PartitionOptions = {},
) => queryPages<T>(partitionQuery(keys.projectPK(projectId), prefix, opts), opts.table);

/** The newest items of a partition under `prefix` (sort keys that order by time), at most `limit` of those passing `filter`. */
export async function queryNewest<T = Record<string, unknown>>(
  pk: string,
  prefix: string,
  opts: { limit: number; filter?: string; values?: Record<string, unknown> },
): Promise<T[]> {
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

/**
 * One page of a key range, newest first (sort keys that order by time), on the table or one of its
 * indexes: the items passing `filter` and `keep`, at most `limit`, and the key to resume after the
 * last one returned (absent when the range is exhausted). Pages through DynamoDB's own pages until
 * the page is full, so a selective filter never returns an empty page while more matches follow.
 */
export async function queryNewestPage<T extends Record<string, unknown>>(opts: {
  index?: { name: string; partitionKey: string; sortKey: string };
  pk: string;
  from: string;
  to: string;
  limit: number;
  filter?: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
  keep?: (item: T) => boolean;
  startAfter?: Record<string, unknown>;
}): Promise<{ items: T[]; last?: Record<string, unknown> }> {
  const pkAttr = opts.index?.partitionKey ?? 'PK';
  const skAttr = opts.index?.sortKey ?? 'SK';
  const keyOf = (item: Record<string, unknown>) => ({
    PK: item.PK,
    SK: item.SK,
    ...(opts.index ? { [pkAttr]: item[pkAttr], [skAttr]: item[skAttr] } : {}),
  });
  const items: T[] = [];
  let ExclusiveStartKey = opts.startAfter;
  do {
    const out = await ddb().send(
      new QueryCommand({
        TableName: config().TABLE_NAME,
        ...(opts.index ? { IndexName: opts.index.name } : { ConsistentRead: true }),
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
        ExpressionAttributeNames: { '#pk': pkAttr, '#sk': skAttr, ...opts.names },
        ExpressionAttributeValues: { ':pk': opts.pk, ':from': opts.from, ':to': opts.to, ...opts.values },
        ...(opts.filter ? { FilterExpression: opts.filter } : {}),
        ScanIndexForward: false,
        Limit: Math.min(1000, opts.limit + 1),
        ExclusiveStartKey,
      }),
    );
    const page = (out.Items ?? []) as T[];
    for (let i = 0; i < page.length; i++) {
      if (opts.keep && !opts.keep(page[i])) continue;
      items.push(page[i]);
      if (items.length === opts.limit) {
        const more = i < page.length - 1 || Boolean(out.LastEvaluatedKey);
        return { items, last: more ? keyOf(page[i]) : undefined };
      }
    }
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return { items };
}

/**
 * The first `wanted` items (every one when Infinity; in sort-key order) under `prefix` of a project's partition that pass
 * `keep` (all when absent), strongly consistent: reads stop once they are found, so an unfiltered
 * read costs `wanted` items and a filtered one what it passed over besides.
 */
export async function queryPage<T = Record<string, unknown>>(
  projectId: string,
  prefix: string,
  opts: { wanted: number; keep?: (item: T) => boolean },
): Promise<T[]> {
  const items: T[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const remaining = opts.wanted - items.length;
    const out = await ddb().send(
      new QueryCommand({
        TableName: config().TABLE_NAME,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
        ExpressionAttributeValues: { ':pk': keys.projectPK(projectId), ':sk': prefix },
        ConsistentRead: true,
        // Unfiltered: exactly what is missing. Filtered: more, as only some pass. Unbounded: DynamoDB's 1 MB pages.
        Limit: !Number.isFinite(remaining)
          ? undefined
          : opts.keep
            ? Math.min(1000, Math.max(100, remaining * 2))
            : remaining,
        ExclusiveStartKey,
      }),
    );
    for (const item of (out.Items ?? []) as T[])
      if (items.length < opts.wanted && (!opts.keep || opts.keep(item))) items.push(item);
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey && items.length < opts.wanted);
  return items;
}

/**
 * Every item of the table whose sort key starts with one of `prefixes` (a Scan): for one-time
 * maintenance (backfills), never a request path.
 */
export async function scanSortKeyPrefixes<T = Record<string, unknown>>(prefixes: string[]): Promise<T[]> {
  const items: T[] = [];
  const values = Object.fromEntries(prefixes.map((p, i) => [`:p${i}`, p]));
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await ddb().send(
      new ScanCommand({
        TableName: config().TABLE_NAME,
        FilterExpression: prefixes.map((_, i) => `begins_with(SK, :p${i})`).join(' OR '),
        ExpressionAttributeValues: values,
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    items.push(...((out.Items ?? []) as T[]));
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}
