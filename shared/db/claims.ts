import type { Key } from './batch-get.ts';
import type { DomainError } from '#shared/errors';
import { conditionalPut, conditionalUpdate } from './items.ts';
import type { TransactStep } from './transact.ts';

/**
 * Writes that take something once, whoever races for it: each holds only while what it takes is
 * still there to take, so of two concurrent requests exactly one succeeds (and an SDK retry of the
 * one that did is answered as done, #db/items).
 */

/**
 * Moves a number field of an existing item up to `value` (and sets `also`) only from below: a time
 * step of an authenticator claimed once. Answers whether this write claimed it.
 */
export async function claimAbove(
  key: Key,
  field: string,
  value: number,
  also: Record<string, unknown>,
): Promise<boolean> {
  const others = Object.entries(also);
  const out = await conditionalUpdate(key, {
    UpdateExpression: `SET #claimed = :value${others.map((_, i) => `, #o${i} = :o${i}`).join('')}`,
    ConditionExpression: 'attribute_exists(PK) AND #claimed < :value',
    ExpressionAttributeNames: { '#claimed': field, ...Object.fromEntries(others.map(([name], i) => [`#o${i}`, name])) },
    ExpressionAttributeValues: { ':value': value, ...Object.fromEntries(others.map(([, v], i) => [`:o${i}`, v])) },
  });
  return out.ok;
}

/** Moves one entry of a map attribute from `from` to `to` only while it holds `from` (a recovery code used once); answers whether it did. */
export async function takeMapEntry(key: Key, map: string, entry: string, from: unknown, to: unknown): Promise<boolean> {
  const out = await conditionalUpdate(key, {
    UpdateExpression: 'SET #map.#entry = :to',
    ConditionExpression: '#map.#entry = :from',
    ExpressionAttributeNames: { '#map': map, '#entry': entry },
    ExpressionAttributeValues: { ':to': to, ':from': from },
  });
  return out.ok;
}

/**
 * Spends a single-use token's item: stamps `fields.used` with `now` while it exists, is unused and
 * `fields.expires` is later than `now` (ISO times compare as text); else `failWith`.
 */
export const spendOnceStep = (
  key: Key,
  fields: { used: string; expires: string },
  now: string,
  failWith: DomainError,
): TransactStep => ({
  Update: {
    Key: key,
    UpdateExpression: 'SET #used = :now',
    ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(#used) AND #expires > :now',
    ExpressionAttributeNames: { '#used': fields.used, '#expires': fields.expires },
    ExpressionAttributeValues: { ':now': now },
  },
  failWith,
});

/** Stamps `field` with `now` on an existing item only while it is unset (a WebSocket ticket spent once); answers the item as written, or undefined. */
export async function spendOnce(key: Key, field: string, now: unknown): Promise<Record<string, unknown> | undefined> {
  const out = await conditionalUpdate(key, {
    UpdateExpression: 'SET #spent = :now',
    ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(#spent)',
    ExpressionAttributeNames: { '#spent': field },
    ExpressionAttributeValues: { ':now': now },
    ReturnValues: 'ALL_NEW',
  });
  return out.ok ? out.item : undefined;
}

/**
 * Puts `item` where there is none, or where the one there differs in `field` (a customer of another
 * payment provider): one of this `field` already there is never replaced. Answers whether it wrote.
 */
export const putUnlessSame = (item: Record<string, unknown>, field: string): Promise<boolean> =>
  conditionalPut(item, {
    ConditionExpression: 'attribute_not_exists(PK) OR #same <> :same',
    ExpressionAttributeNames: { '#same': field },
    ExpressionAttributeValues: { ':same': item[field] },
  });

/**
 * Puts a claim `item` (e.g. a domain a project claims) where there is none, where the one there is
 * already `holder`'s (`holderField`), or where the one there is only tentative (`tentative`: a field
 * and the value that marks it so, e.g. an unverified claim, which the first to prove it takes over).
 */
export const claimUnlessHeldStep = (
  item: Record<string, unknown>,
  holderField: string,
  tentative: [field: string, value: unknown],
  failWith: DomainError,
): TransactStep => ({
  Put: {
    Item: item,
    ConditionExpression: 'attribute_not_exists(PK) OR #holder = :holder OR #tentative = :tentative',
    ExpressionAttributeNames: { '#holder': holderField, '#tentative': tentative[0] },
    ExpressionAttributeValues: { ':holder': item[holderField], ':tentative': tentative[1] },
  },
  failWith,
});
