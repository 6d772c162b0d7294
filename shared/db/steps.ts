import type { DomainError } from '#shared/errors';
import type { Key } from './batch-get';
import type { TransactStep } from './transact';

/** Transaction steps for the patterns every context writes (the live rule's steps are in live.ts). */

/** Creates an item; when its key is taken, `failWith` (a uniqueness refusal) or a 409. */
export const putNewStep = (item: Record<string, unknown>, failWith?: DomainError): TransactStep => ({
  Put: { Item: item, ConditionExpression: 'attribute_not_exists(PK)' },
  failWith,
});

/** Writes an item whatever was there. */
export const putStep = (item: Record<string, unknown>): TransactStep => ({ Put: { Item: item } });

/** Removes an item; with `failWith`, only one that exists (otherwise that refusal). */
export const deleteStep = (key: Key, failWith?: DomainError): TransactStep =>
  failWith ? { Delete: { Key: key, ConditionExpression: 'attribute_exists(PK)' }, failWith } : { Delete: { Key: key } };

/** Guards that an item exists (whatever its state). */
export const existsStep = (key: Key, failWith?: DomainError): TransactStep => ({
  ConditionCheck: { Key: key, ConditionExpression: 'attribute_exists(PK)' },
  failWith,
});

/**
 * Moves a counter on an existing item by `by`, never past its bounds: an increment only while the
 * count stays at most `max` (concurrent creates can never exceed a limit), a decrement only while
 * the count stays at least 0 (a counter can never drift negative). `extra` sets more fields in the
 * same write (e.g. `updated_at`).
 */
export function counterStep(key: Key, field: string, by: number, opts: { max?: number | null; failWith?: DomainError; extra?: Record<string, unknown> } = {}): TransactStep {
  const names: Record<string, string> = { '#c': field };
  const values: Record<string, unknown> = { ':by': by, ':zero': 0 };
  const sets = ['#c = if_not_exists(#c, :zero) + :by'];
  Object.entries(opts.extra ?? {}).forEach(([f, v], i) => {
    names[`#x${i}`] = f;
    values[`:x${i}`] = v;
    sets.push(`#x${i} = :x${i}`);
  });
  let condition = 'attribute_exists(PK)';
  if (by > 0 && opts.max != null) {
    values[':room'] = opts.max - by;
    condition += ' AND (attribute_not_exists(#c) OR #c <= :room)';
  }
  if (by < 0) {
    values[':least'] = -by;
    condition += ' AND #c >= :least';
  }
  return {
    Update: { Key: key, UpdateExpression: `SET ${sets.join(', ')}`, ConditionExpression: condition, ExpressionAttributeNames: names, ExpressionAttributeValues: values },
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
  return { UpdateExpression: `SET ${sets.join(', ')}`, ExpressionAttributeNames: names, ExpressionAttributeValues: values };
}

/** Conditions by name, for updates outside the step builders. */
export const IF_EXISTS = { ConditionExpression: 'attribute_exists(PK)' } as const;
export const IF_ABSENT = { ConditionExpression: 'attribute_not_exists(PK)' } as const;

/** Sets fields on an item that must exist (whatever its lifecycle: e.g. withdrawing an assignment). */
export function existingSetStep(key: Key, fields: Record<string, unknown>, failWith?: DomainError): TransactStep {
  return { Update: { Key: key, ...setExpression(fields), ...IF_EXISTS }, failWith };
}
