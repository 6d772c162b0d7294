import { config } from '#shared/config';
import type { AppError } from '#http/errors';
import type { TransactStep } from './transact';

/**
 * The soft delete of one live item: `deleted_at` and `updated_at` set to `now` (so syncs see it),
 * on condition that it exists and is not deleted yet; otherwise `failWith` (usually its 404).
 */
export function softDeleteStep(key: { PK: string; SK: string }, now: string, failWith: AppError): TransactStep {
  return {
    Update: {
      TableName: config().TABLE_NAME,
      Key: key,
      UpdateExpression: 'SET deleted_at = :now, updated_at = :now',
      ConditionExpression: 'attribute_exists(PK) AND deleted_at = :null',
      ExpressionAttributeValues: { ':now': now, ':null': null },
    },
    failWith,
  };
}

type Syncable = { updated_at: string; deleted_at?: string | null; archived_at?: string | null };

/**
 * The soft-delete list rule: without `updatedSince`, live items only; with it, items changed since
 * then, deleted ones included. Archived items are never listed.
 */
export function visible<T extends Syncable>(items: T[], updatedSince?: string): T[] {
  return items.filter((i) => !i.archived_at).filter((i) => (updatedSince ? i.updated_at >= updatedSince : !i.deleted_at));
}
