import type { Key } from './batch-get.ts';
import type { TransactStep } from './transact.ts';
import type { DomainError } from '#shared/errors';
import { conditionalPut, conditionalUpdate } from './items.ts';
import { retry } from './retry.ts';

/**
 * An exact fixed-window counter on one item (failed sign-ins per address, requests per rate-limit
 * bucket): `count` holds the window's tally and `ends` its end, a number in the caller's unit (now
 * and the end compare as numbers). The window opens with its first count and lasts until `ends`.
 * TTL deletes lazily, so the conditions themselves treat an item past its end as absent:
 * - count into a live window that is not full (an atomic ADD, so concurrent counts are each counted);
 * - otherwise, when the window is missing or over, open a new one with this count as its first;
 * - otherwise the window is full (only with a `limit`): refuse until it ends.
 * A request that loses the race to open the new window counts into it (tried again at once).
 */
export interface FixedWindow {
  /** The attribute holding the tally. */
  count: string;
  /** The attribute holding the window's end. */
  ends: string;
  /** Counts refused (nothing written) once the tally has reached it; none: every count is taken. */
  limit?: number;
}

/** Whether this count was taken (refused: the live window is full), the window's tally after it and its end. */
export type WindowTally = { counted: boolean; tally: number; ends: number };

/** Tries of a count: each lost race (another request opened the window first) means the next ADD finds a live window. */
const COUNT_ATTEMPTS = 5;

class WindowOpenedMeanwhile extends Error {}

/**
 * Counts one in the window at `key` as of `now`; a window opened here ends at `opens.ends` and holds
 * `opens.item` (its type and other attributes) besides the key, the tally and the end.
 */
export async function countInWindow(
  key: Key,
  window: FixedWindow,
  now: number,
  opens: { ends: number; item: Record<string, unknown> },
): Promise<WindowTally> {
  const names = { '#count': window.count, '#ends': window.ends };
  try {
    return await retry(
      async () => {
        const counted = await conditionalUpdate(key, {
          UpdateExpression: 'ADD #count :one',
          ConditionExpression: window.limit === undefined ? '#ends > :now' : '#ends > :now AND #count < :limit',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: {
            ':one': 1,
            ':now': now,
            ...(window.limit === undefined ? {} : { ':limit': window.limit }),
          },
          ReturnValues: 'ALL_NEW',
        });
        if (counted.ok)
          return { counted: true, tally: Number(counted.item[window.count]), ends: Number(counted.item[window.ends]) };
        const ends = Number(counted.old?.[window.ends] ?? 0);
        if (ends > now) return { counted: false, tally: Number(counted.old?.[window.count] ?? 0), ends };
        const opened = await conditionalPut(
          { ...opens.item, ...key, [window.count]: 1, [window.ends]: opens.ends },
          {
            ConditionExpression: 'attribute_not_exists(PK) OR #ends <= :now',
            ExpressionAttributeNames: { '#ends': window.ends },
            ExpressionAttributeValues: { ':now': now },
          },
        );
        if (!opened) throw new WindowOpenedMeanwhile();
        return { counted: true, tally: 1, ends: opens.ends };
      },
      { attempts: COUNT_ATTEMPTS, when: (err) => err instanceof WindowOpenedMeanwhile },
    );
  } catch (err) {
    if (err instanceof WindowOpenedMeanwhile) throw new Error(`The fixed-window counter did not settle for ${key.PK}`);
    throw err;
  }
}

/**
 * A hold on a window's item (a sign-in lock): sets `field` to `until` (and `also`) unless a hold is
 * already in force at `now`; the item must exist. As a transaction step, refused with `failWith`.
 */
export function holdStep(
  key: Key,
  field: string,
  until: number,
  now: number,
  also: Record<string, number>,
  failWith: DomainError,
): TransactStep {
  const fields = Object.entries(also);
  return {
    Update: {
      Key: key,
      UpdateExpression: `SET #until = :until${fields.map((_, i) => `, #a${i} = :a${i}`).join('')}`,
      ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(#until) OR #until <= :now)',
      ExpressionAttributeNames: { '#until': field, ...Object.fromEntries(fields.map(([name], i) => [`#a${i}`, name])) },
      ExpressionAttributeValues: {
        ':until': until,
        ':now': now,
        ...Object.fromEntries(fields.map(([, value], i) => [`:a${i}`, value])),
      },
    },
    failWith,
  };
}
