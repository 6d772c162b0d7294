import type { DomainError } from '#shared/errors';
import type { Key } from './batch-get.ts';
import type { TransactStep } from './transact.ts';
import { allOf, conditionParams, type Condition } from './condition.ts';

/** Transaction steps for the patterns every context writes (the live rule's steps are in live.ts). */

/** Conditions by name (also for single-item writes). */
export const IF_EXISTS = { ConditionExpression: 'attribute_exists(PK)' } as const;
export const IF_ABSENT = { ConditionExpression: 'attribute_not_exists(PK)' } as const;

/** Creates an item; when its key is taken, `failWith` (a uniqueness refusal) or a 409. */
export const putNewStep = (item: Record<string, unknown>, failWith?: DomainError): TransactStep => ({
  Put: { Item: item, ...IF_ABSENT },
  failWith,
});

/** Writes an item whatever was there. */
export const putStep = (item: Record<string, unknown>): TransactStep => ({ Put: { Item: item } });

/** Removes an item; with `failWith`, only one that exists (otherwise that refusal). */
export const deleteStep = (key: Key, failWith?: DomainError): TransactStep =>
  failWith ? { Delete: { Key: key, ...IF_EXISTS }, failWith } : { Delete: { Key: key } };

/**
 * Whether `delta` more on a counter at `count` would pass `max` (null or undefined: unlimited): what
 * counterStep's condition refuses, for a check on a count read (a refusal before writing, or why a
 * write was refused).
 */
export const passesMax = (count: number, delta: number, max: number | null | undefined): boolean =>
  delta > 0 && max !== null && max !== undefined && count + delta > max;

/**
 * Moves counters on one existing item (several counters of one item share one step: a transaction
 * touches an item once). An increment with a `max` holds only while the count stays at most `max`
 * (null: unlimited), so concurrent creates never exceed a limit; a decrement only while the count
 * stays at least 0, so a counter never drifts negative.
 */
export function counterStep(
  key: Key,
  deltas: Record<string, number>,
  opts: { max?: Record<string, number | null>; failWith?: DomainError } = {},
): TransactStep {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':zero': 0 };
  const conditions = ['attribute_exists(PK)'];
  const sets = Object.entries(deltas).map(([counter, delta], i) => {
    names[`#c${i}`] = counter;
    values[`:d${i}`] = delta;
    const max = opts.max?.[counter];
    if (delta > 0 && max !== undefined && max !== null) {
      values[`:room${i}`] = max - delta;
      conditions.push(`(attribute_not_exists(#c${i}) OR #c${i} <= :room${i})`);
    }
    if (delta < 0) {
      values[`:least${i}`] = -delta;
      conditions.push(`#c${i} >= :least${i}`);
    }
    return `#c${i} = if_not_exists(#c${i}, :zero) + :d${i}`;
  });
  return {
    Update: {
      Key: key,
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
    failWith: opts.failWith,
  };
}

/**
 * `SET` for the defined fields (and `increments`, added to a missing field as to 0), with
 * placeholder names and values: no raw attribute names in callers.
 */
export function setExpression(fields: Record<string, unknown>, increments: Record<string, number> = {}) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets = Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([field, value], i) => {
      names[`#f${i}`] = field;
      values[`:v${i}`] = value;
      return `#f${i} = :v${i}`;
    });
  Object.entries(increments).forEach(([field, by], i) => {
    names[`#i${i}`] = field;
    values[`:i${i}`] = by;
    values[':zero'] = 0;
    sets.push(`#i${i} = if_not_exists(#i${i}, :zero) + :i${i}`);
  });
  return {
    UpdateExpression: `SET ${sets.join(', ')}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/** The condition that each field of `when` still holds its value (the state read earlier), with placeholder names and values. */
export function whenCondition(when: Record<string, unknown>) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const conditions = Object.entries(when).map(([field, value], i) => {
    names[`#w${i}`] = field;
    values[`:w${i}`] = value;
    return `#w${i} = :w${i}`;
  });
  return {
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/** `SET` for `fields` on condition that each field of `when` still holds its value (the state read earlier). */
export function setWhenExpression(fields: Record<string, unknown>, when: Record<string, unknown>) {
  const update = setExpression(fields);
  const condition = whenCondition(when);
  return {
    UpdateExpression: update.UpdateExpression,
    ConditionExpression: condition.ConditionExpression,
    ExpressionAttributeNames: { ...update.ExpressionAttributeNames, ...condition.ExpressionAttributeNames },
    ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ...condition.ExpressionAttributeValues },
  };
}

/** Replaces an item while `when` holds (it is as read); else `failWith`. */
export const putWhenStep = (
  item: Record<string, unknown>,
  when: Record<string, unknown>,
  failWith?: DomainError,
): TransactStep => ({
  Put: { Item: item, ...whenCondition(when) },
  failWith,
});

/** Removes an item while `when` holds (it is as read); else `failWith`. */
export const deleteWhenStep = (key: Key, when: Record<string, unknown>, failWith?: DomainError): TransactStep => ({
  Delete: { Key: key, ...whenCondition(when) },
  failWith,
});

/** Sets fields on an item while `when` holds (a transition from the state it was read in), and `also` when given; else `failWith`. */
export function setWhenStep(
  key: Key,
  fields: Record<string, unknown>,
  when: Record<string, unknown>,
  failWith?: DomainError,
  also?: Condition,
): TransactStep {
  const update = setWhenExpression(fields, when);
  const condition = allOf(
    update.ConditionExpression ? { expression: update.ConditionExpression, values: {} } : undefined,
    also,
  );
  return {
    Update: {
      Key: key,
      UpdateExpression: update.UpdateExpression,
      ConditionExpression: condition?.expression ?? update.ConditionExpression,
      ExpressionAttributeNames: { ...update.ExpressionAttributeNames, ...condition?.names },
      ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ...condition?.values },
    },
    failWith,
  };
}

/** Sets fields on an item that must exist (whatever its lifecycle: e.g. withdrawing an assignment). */
export function existingSetStep(key: Key, fields: Record<string, unknown>, failWith?: DomainError): TransactStep {
  return { Update: { Key: key, ...setExpression(fields), ...IF_EXISTS }, failWith };
}

/**
 * Holds a transaction on an item it does not write: each field of `when` still has its value (the
 * state read earlier), or, with `when` null, the item still absent; else `failWith`.
 */
export const unchangedStep = (
  key: Key,
  when: Record<string, unknown> | null,
  failWith?: DomainError,
): TransactStep => ({
  ConditionCheck: { Key: key, ...(when ? whenCondition(when) : IF_ABSENT) },
  failWith,
});

/**
 * Holds a transaction on an item it does not write while `condition` holds on it (the state it was
 * read in, e.g. a listing's `asRead` and `lifecycleAsRead`); else `failWith`.
 */
export const heldAsReadStep = (key: Key, condition: Condition, failWith?: DomainError): TransactStep => ({
  ConditionCheck: { Key: key, ...conditionParams(condition) },
  failWith,
});
