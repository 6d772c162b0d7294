import type { DomainError } from '#shared/errors';
import type { Key } from './batch-get.ts';
import { keyId } from './batch-get.ts';
import type { TransactStep } from './transact.ts';
import { setExpression, setWhenStep } from './steps.ts';
import { allOf, isUnset, type Condition } from './condition.ts';

// The condition vocabulary is a leaf of its own (steps.ts builds on it too); re-exported as part of the live rule's.
export { allOf, conditionParams, type Condition } from './condition.ts';

/**
 * The live rule, decided once: an item is live when it exists and is neither
 * soft-deleted nor archived. Only live items are listed, counted against limits, referenced or
 * changed; an archived item comes back only through restore. Items of some kinds lack
 * `deleted_at`/`archived_at` altogether, which counts as not deleted / not archived.
 */
export const LIVE_CONDITION =
  'attribute_exists(PK) AND (attribute_not_exists(deleted_at) OR deleted_at = :null) AND (attribute_not_exists(archived_at) OR archived_at = :null)';

/**
 * The live rule as a Query's filter (the items a Query finds exist; a filter may not name the key):
 * a reader that wants live items only asks for those, rather than reading deleted and archived
 * ones back to drop them (`isLive` afterwards). A filter saves what is sent and decoded, not what is
 * read: a range that holds live items only (a listing) is cheaper still.
 */
export const LIVE_FILTER: Condition = {
  expression:
    '(attribute_not_exists(deleted_at) OR deleted_at = :null) AND (attribute_not_exists(archived_at) OR archived_at = :null)',
  values: { ':null': null },
};

/**
 * The live rule as a Condition, to join with others (allOf) on a write. Not a Query's filter (a
 * filter may not name the key, which `attribute_exists(PK)` does): filter on NOT_DELETED, then `isLive`.
 */
export const LIVE: Condition = { expression: LIVE_CONDITION, values: { ':null': null } };

/**
 * Not soft-deleted, archived or not: for the rare writes where an archived item still counts (a
 * floor's delete detaches its archived services too; a restore takes an archived item back).
 */
export const NOT_DELETED: Condition = {
  expression: '(attribute_not_exists(deleted_at) OR deleted_at = :null)',
  values: { ':null': null },
};

/** What the live rule reads of an item. */
export type Lifecycle = { deleted_at?: string | null; archived_at?: string | null };
/** An item the live rule can read as it comes from a read (a decoded entity or a raw item alike: no cast needed). */
type Stored = { readonly deleted_at?: unknown; readonly archived_at?: unknown };

/** The attributes the live rule reads: a projection that is to be filtered with `isLive` names them. */
export const LIFECYCLE_FIELDS = ['deleted_at', 'archived_at'] as const;

/**
 * The item's lifecycle still as read: each of its lifecycle fields unset as it was, or the value it
 * had (a write racing a rebuild that read it soft-deletes, archives or restores it: the condition fails).
 */
export function lifecycleAsRead(item: Stored): Condition {
  const parts = LIFECYCLE_FIELDS.map(
    (f): Condition =>
      item[f]
        ? { expression: `#lc_${f} = :lc_${f}`, names: { [`#lc_${f}`]: f }, values: { [`:lc_${f}`]: item[f] } }
        : isUnset(f),
  );
  return allOf(...parts)!;
}

export const isLive = (item: Stored | undefined | null): boolean =>
  Boolean(item && !item.deleted_at && !item.archived_at);

/** Soft-deleted (an absent item is not: callers that care test for it first). */
export const isDeleted = (item: Stored | undefined): boolean => Boolean(item?.deleted_at);

/** Archived and not deleted: what a restore can bring back (an archived item is never deleted; a restore clears `archived_at`). */
export const isArchived = (item: Stored | undefined): boolean => Boolean(item?.archived_at && !item.deleted_at);

/** A live item among what a BatchGet returned, or undefined. */
export function liveItem<T>(items: Map<string, Record<string, unknown>>, key: Key): T | undefined {
  const item = items.get(keyId(key));
  return isLive(item) ? (item as T) : undefined;
}

/**
 * The list rule: without `updatedSince`, live items only; with it, every item changed since then,
 * deleted and archived ones included, so a syncing client sees them go.
 */
export function visible<T extends Lifecycle & { updated_at: string }>(items: T[], updatedSince?: string): T[] {
  return updatedSince ? items.filter((i) => i.updated_at >= updatedSince) : items.filter(isLive);
}

/** Guards, inside a transaction, that an item read earlier is still live (a concurrent delete or archive makes the write fail with `failWith`). */
export function stillLiveStep(key: Key, failWith: DomainError): TransactStep {
  return {
    ConditionCheck: { Key: key, ConditionExpression: LIVE_CONDITION, ExpressionAttributeValues: { ':null': null } },
    failWith,
  };
}

/** The soft delete of one live item: `deleted_at` and `updated_at` set to `now` (so syncs see it); otherwise `failWith` (usually its 404). */
export function softDeleteStep(key: Key, now: string, failWith: DomainError): TransactStep {
  return {
    Update: {
      Key: key,
      UpdateExpression: 'SET deleted_at = :now, updated_at = :now',
      ConditionExpression: LIVE_CONDITION,
      ExpressionAttributeValues: { ':now': now, ':null': null },
    },
    failWith,
  };
}

/** A condition as a Query's filter (`queryPrefix`'s options). */
export const filterParams = (c: Condition) => ({ filter: c.expression, values: c.values });

/**
 * The list rule (`visible`) as a Query's filter: live items only, or with `updatedSince` every item
 * changed since then (deleted and archived ones included). Pass the same `updatedSince` to `visible`.
 */
export const visibleFilter = (updatedSince?: string) =>
  updatedSince
    ? { filter: 'updated_at >= :visibleSince', values: { ':visibleSince': updatedSince } }
    : filterParams(LIVE_FILTER);

/**
 * Sets `fields` (and nothing else; an undefined value leaves its field as it is) on a live item;
 * fails with `failWith` when it is gone meanwhile. The one "patch a live item" write.
 */
export function setFieldsStep(
  key: Key,
  fields: Record<string, unknown>,
  failWith: DomainError,
  extraCondition?: Condition,
): TransactStep {
  const set = setExpression(fields);
  return {
    Update: {
      Key: key,
      UpdateExpression: set.UpdateExpression,
      ConditionExpression: extraCondition ? `${LIVE_CONDITION} AND ${extraCondition.expression}` : LIVE_CONDITION,
      ExpressionAttributeNames: { ...set.ExpressionAttributeNames, ...extraCondition?.names },
      ExpressionAttributeValues: { ...set.ExpressionAttributeValues, ':null': null, ...extraCondition?.values },
    },
    failWith,
  };
}

/**
 * An `Update` step (a counter step, usually) that also requires its item to be live, refused with
 * `failWith`: e.g. an environment's service counter moves only while the environment is live, since
 * a transaction touches an item once and cannot guard it with a separate check.
 */
export function whileLiveStep(step: TransactStep, failWith: DomainError): TransactStep {
  const update = step.Update;
  if (!update) throw new Error('whileLiveStep takes an Update step');
  return {
    Update: {
      ...update,
      ConditionExpression: update.ConditionExpression
        ? `(${update.ConditionExpression}) AND ${LIVE_CONDITION}`
        : LIVE_CONDITION,
      ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':null': null },
    },
    failWith,
  };
}

/**
 * Sets `fields` on an item that is not soft-deleted (archived or not: see NOT_DELETED) while each
 * field of `when` still holds its value as read; otherwise `failWith`.
 */
export const setUnlessDeletedStep = (
  key: Key,
  fields: Record<string, unknown>,
  when: Record<string, unknown>,
  failWith: DomainError,
): TransactStep => setWhenStep(key, fields, when, failWith, NOT_DELETED);
