import type { Key } from './batch-get.ts';
import type { DomainError } from '#shared/errors';
import { refsAsRead, refsName } from './refs.ts';
import type { TransactStep } from './transact.ts';

/**
 * Grants held in a string-set attribute of an item (a member's custom-role grants), each change
 * moving the item's `refs_version` on (refs.ts): a writer of the whole set, and a delete of the
 * item, then learn that the set changed since they read it.
 */

/** Adds grants to the set of an item that exists (safe under concurrency: adding to a set needs no read); else `failWith`. */
export const addGrantsStep = (key: Key, attribute: string, grants: string[], failWith?: DomainError): TransactStep => ({
  Update: {
    Key: key,
    UpdateExpression: 'ADD #grants :g, #refs :one',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeNames: { '#grants': attribute, ...refsName },
    ExpressionAttributeValues: { ':g': new Set(grants), ':one': 1 },
  },
  failWith,
});

/**
 * Replaces the whole set (one update cannot both add to and delete from one attribute), while the
 * item is as read (`item`'s version); else `failWith`.
 */
export function replaceGrantsStep(
  key: Key,
  attribute: string,
  grants: Set<string>,
  item: { refs_version?: number | null },
  failWith?: DomainError,
): TransactStep {
  const asRead = refsAsRead(item);
  return {
    Update: {
      Key: key,
      UpdateExpression: 'SET #grants = :set ADD #refs :one',
      ConditionExpression: asRead.expression,
      ExpressionAttributeNames: { '#grants': attribute, ...asRead.names },
      ExpressionAttributeValues: { ':set': grants, ':one': 1, ...asRead.values },
    },
    failWith,
  };
}

/**
 * Removes grants from the set of an item that exists (safe under concurrency, like the add); with `guard`, only
 * while the item is as read (its version), else `guard.failWith`.
 */
export function withdrawGrantsStep(
  key: Key,
  attribute: string,
  grants: string[],
  guard?: { asRead: { refs_version?: number | null }; failWith: DomainError },
): TransactStep {
  const asRead = guard && refsAsRead(guard.asRead);
  return {
    Update: {
      Key: key,
      UpdateExpression: 'DELETE #grants :g ADD #refs :one',
      ConditionExpression: asRead?.expression ?? 'attribute_exists(PK)',
      ExpressionAttributeNames: { '#grants': attribute, ...refsName, ...asRead?.names },
      ExpressionAttributeValues: { ':g': new Set(grants), ':one': 1, ...asRead?.values },
    },
    failWith: guard?.failWith,
  };
}
