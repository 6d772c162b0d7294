import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { errorFields, log } from '#shared/log';
import { deleteItem } from './items.ts';

/**
 * Due work kept in one time-ordered partition (sort key `<due ISO time>#…`): a sweep (a schedule in
 * the cloud, a timer locally, a call with a moved clock in tests) reads what is due by `now`, oldest
 * first, at most `perSweep`, runs each and then deletes it. A failure leaves the item for the next
 * sweep (so `run` must be idempotent).
 */
export async function sweepDue<T extends { PK: string; SK: string }>(
  pk: string,
  now: Date,
  run: (item: T) => Promise<void>,
  opts: { what: string; perSweep?: number; logFields?: (item: T) => Record<string, unknown> },
): Promise<{ done: number; failed: number }> {
  const out = await ddb().send(
    new QueryCommand({
      TableName: config().TABLE_NAME,
      KeyConditionExpression: 'PK = :pk AND SK <= :now',
      ExpressionAttributeValues: { ':pk': pk, ':now': `${now.toISOString()}\uffff` },
      ConsistentRead: true,
      Limit: opts.perSweep ?? 100,
    }),
  );
  let done = 0;
  let failed = 0;
  for (const item of (out.Items ?? []) as T[]) {
    try {
      await run(item);
      await deleteItem({ PK: item.PK, SK: item.SK });
      done++;
    } catch (err) {
      failed++;
      log.error(`${opts.what} failed; run again at the next sweep`, { ...opts.logFields?.(item), ...errorFields(err) });
    }
  }
  return { done, failed };
}
