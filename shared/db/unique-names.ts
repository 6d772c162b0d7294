import { foldName } from '#shared/text';
import { keys } from './keys.ts';
import { CASCADE_STALE, type TransactStep } from './transact.ts';
import { deleteStep, putNewStep } from './steps.ts';
import { setFieldsStep, allOf, type Condition } from './live.ts';
import type { Key } from './batch-get.ts';
import { invalid, type DomainError } from '#shared/errors';

/**
 * Names unique within a scope (environment names per project, group and network names per
 * environment, subgroup names per group) are held by sentinel items written in the same
 * transaction as the item, so two concurrent creates cannot both win. Comparison ignores case.
 */
export interface NameScope {
  projectId: string;
  kind: string;
  scopeId: string;
  /** The 400 detail when the name is taken. */
  takenDetail: string;
}

export function claimNameStep(scope: NameScope, name: string, ownerId: string): TransactStep {
  return putNewStep(
    { ...keys.uniqueName(scope.projectId, scope.kind, scope.scopeId, name), owner_id: ownerId },
    invalid(scope.takenDetail),
  );
}

export function releaseNameStep(scope: NameScope, name: string): TransactStep {
  return deleteStep(keys.uniqueName(scope.projectId, scope.kind, scope.scopeId, name));
}

/** Renaming moves the claim; an unchanged name (ignoring case) needs no steps. */
export function renameSteps(scope: NameScope, from: string, to: string, ownerId: string): TransactStep[] {
  if (foldName(from) === foldName(to)) return [];
  return [claimNameStep(scope, to, ownerId), releaseNameStep(scope, from)];
}

/** The condition, for a named item's own write, that its name is still the one read. */
export const nameAsRead = (name: string): Condition => ({
  expression: '#named = :named',
  names: { '#named': 'name' },
  values: { ':named': name },
});

/**
 * The write of a named item (`setFieldsStep` of `fields` on `item.key`) with its claim's steps: a
 * new `name` moves the claim, a `deleted_at` releases it. Either happens on condition that the item
 * still has the name read: otherwise two concurrent renames, or a rename and a delete,
 * would each move or release a claim the other no longer holds, and leave a name taken by nobody.
 * Such a write fails with `stale` (CASCADE_STALE: re-run it from a new read with retryWhenStale,
 * whose read answers the 404 of an item gone meanwhile); one that leaves the name alone fails
 * with `gone`. `also`: another condition the item's write needs.
 */
export function namedWriteSteps(
  scope: NameScope,
  item: { key: Key; id: string; name: string },
  fields: Record<string, unknown> & { name?: string; deleted_at?: string },
  gone: DomainError,
  opts: { stale?: DomainError; also?: Condition } = {},
): TransactStep[] {
  const claims = fields.deleted_at
    ? [releaseNameStep(scope, item.name)]
    : fields.name !== undefined
      ? renameSteps(scope, item.name, fields.name, item.id)
      : undefined;
  if (!claims) return [setFieldsStep(item.key, fields, opts.stale ?? gone, opts.also)];
  return [
    setFieldsStep(item.key, fields, opts.stale ?? CASCADE_STALE, allOf(nameAsRead(item.name), opts.also)),
    ...claims,
  ];
}
