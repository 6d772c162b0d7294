import { keys } from './keys';
import type { TransactStep } from './transact';
import { deleteStep, putNewStep } from './steps';
import { invalid } from '#shared/errors';

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
  return putNewStep({ ...keys.uniqueName(scope.projectId, scope.kind, scope.scopeId, name), owner_id: ownerId }, invalid(scope.takenDetail));
}

export function releaseNameStep(scope: NameScope, name: string): TransactStep {
  return deleteStep(keys.uniqueName(scope.projectId, scope.kind, scope.scopeId, name));
}

/** Renaming moves the claim; an unchanged name (ignoring case) needs no steps. */
export function renameSteps(scope: NameScope, from: string, to: string, ownerId: string): TransactStep[] {
  if (from.trim().toLowerCase() === to.trim().toLowerCase()) return [];
  return [claimNameStep(scope, to, ownerId), releaseNameStep(scope, from)];
}
