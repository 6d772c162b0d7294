import type { Key } from './batch-get.ts';
import type { DomainError } from '#shared/errors';
import { allOf, type Condition } from './condition.ts';
import { conditionalUpdate } from './items.ts';
import { setExpression } from './steps.ts';
import type { TransactStep } from './transact.ts';

/**
 * A job's record (an import or export record, a discovery run) moves on only while it is not
 * finished (queued or running), and `seq` moves with every change, so a follower of its progress
 * knows the latest message from an older one.
 */
const UNFINISHED: Condition = {
  expression: '#st IN (:queued, :running)',
  names: { '#st': 'status' },
  values: { ':queued': 'queued', ':running': 'running' },
};

/** The update that sets `fields` and adds one to `seq`, while the record is unfinished (and `also` holds). */
function sequenced(fields: Record<string, unknown>, also?: Condition) {
  const update = setExpression(fields);
  const c = allOf(UNFINISHED, also)!;
  return {
    UpdateExpression: `${update.UpdateExpression}, #seq = if_not_exists(#seq, :zero) + :one`,
    ConditionExpression: c.expression,
    ExpressionAttributeNames: { ...update.ExpressionAttributeNames, ...c.names, '#seq': 'seq' },
    ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ...c.values, ':zero': 0, ':one': 1 },
  };
}

/** Moves an unfinished record on (and `also` holds); answers it as written, or undefined when it had finished (or `also` failed). */
export async function moveOnWhileUnfinished(
  key: Key,
  fields: Record<string, unknown>,
  also?: Condition,
): Promise<Record<string, unknown> | undefined> {
  const out = await conditionalUpdate(key, { ...sequenced(fields, also), ReturnValues: 'ALL_NEW' });
  return out.ok ? out.item : undefined;
}

/** The same move as a transaction step: refused with `failWith` when the record had finished. */
export const moveOnWhileUnfinishedStep = (
  key: Key,
  fields: Record<string, unknown>,
  failWith: DomainError,
): TransactStep => ({
  Update: { Key: key, ...sequenced(fields) },
  failWith,
});

/**
 * A gapless number (the deployment's invoice counter): moves `field` from `last`, the value read (0:
 * no item yet), to the next only while nobody moved it in between; else `failWith` (read again).
 */
export const nextNumberStep = (key: Key, field: string, last: number, failWith: DomainError): TransactStep => ({
  Update: {
    Key: key,
    UpdateExpression: 'SET #v = :next',
    ConditionExpression: last === 0 ? 'attribute_not_exists(PK)' : '#v = :last',
    ExpressionAttributeNames: { '#v': field },
    ExpressionAttributeValues: { ':next': last + 1, ...(last === 0 ? {} : { ':last': last }) },
  },
  failWith,
});

/**
 * A gapless counter moved by `by` at once (an environment's live changes, numbered in one write):
 * from `last` (0: no item yet) while nobody moved it in between, setting `also` beside it.
 */
export function advanceNumberStep(
  key: Key,
  field: string,
  last: number,
  by: number,
  also: Record<string, unknown>,
  failWith: DomainError,
): TransactStep {
  const set = setExpression({ ...also, [field]: last + by });
  return {
    Update: {
      Key: key,
      UpdateExpression: set.UpdateExpression,
      ConditionExpression: last === 0 ? 'attribute_not_exists(PK)' : '#last = :last',
      ExpressionAttributeNames: { ...set.ExpressionAttributeNames, ...(last === 0 ? {} : { '#last': field }) },
      ExpressionAttributeValues: { ...set.ExpressionAttributeValues, ...(last === 0 ? {} : { ':last': last }) },
    },
    failWith,
  };
}

/** Holds while a gapless counter still reads `last` (0: no item yet); else `failWith`. */
export const numberIsStep = (key: Key, field: string, last: number, failWith: DomainError): TransactStep => ({
  ConditionCheck: {
    Key: key,
    ConditionExpression: last === 0 ? 'attribute_not_exists(PK)' : '#last = :last',
    ...(last === 0
      ? {}
      : { ExpressionAttributeNames: { '#last': field }, ExpressionAttributeValues: { ':last': last } }),
  },
  failWith,
});
