/** The environment, group and subgroup a new invitation names: read with the caller's access, checked live and nested. */
import { keys } from '#db/keys';
import { invalid } from '#shared/errors';
import type { ProjectAccess } from './access.ts';
import { ENV_NOT_IN_PROJECT } from './env-scope.ts';
import { GROUP_NOT_IN_ENV } from './group-rules.ts';
import { keyId } from '#db/batch-get';
import { isLive } from '#db/live';
import type { NewInvitation } from './invitation-state.ts';
import { subgroupEntity } from './group-entity.ts';

export const SUBGROUP_NOT_IN_GROUP = 'Subgroup not found or does not belong to group';

/**
 * The environment, group and subgroup an invitation names must be live and nested in one another
 * (400 otherwise); they were read with the caller's access, in the same BatchGet. A subgroup alone
 * implies its group, which is recorded too.
 */
export function checkScope(
  access: ProjectAccess,
  input: NewInvitation,
): { group_id: string | null; subgroup_id: string | null } {
  const projectId = access.project.id;
  const envId = input.environment_id;
  if (!envId) return { group_id: null, subgroup_id: null }; // the schema requires an environment with a group or subgroup
  const item = (key: { PK: string; SK: string }) => access.extra.get(keyId(key));
  if (!isLive(item(keys.environment(projectId, envId)))) throw invalid(ENV_NOT_IN_PROJECT);
  if (input.group_id && !isLive(item(keys.group(projectId, envId, input.group_id)))) throw invalid(GROUP_NOT_IN_ENV);
  if (!input.subgroup_id) return { group_id: input.group_id ?? null, subgroup_id: null };
  const subgroup = subgroupEntity.decodeFound(item(keys.subgroup(projectId, envId, input.subgroup_id)));
  if (!isLive(subgroup) || (input.group_id && subgroup!.group_id !== input.group_id))
    throw invalid(SUBGROUP_NOT_IN_GROUP);
  return { group_id: subgroup!.group_id, subgroup_id: input.subgroup_id };
}

/** The keys of what the invitation names, read in the BatchGet of the caller's access. */
export function scopeKeys(projectId: string, input: NewInvitation) {
  const envId = input.environment_id;
  if (!envId) return [];
  return [
    keys.environment(projectId, envId),
    ...(input.group_id ? [keys.group(projectId, envId, input.group_id)] : []),
    ...(input.subgroup_id ? [keys.subgroup(projectId, envId, input.subgroup_id)] : []),
  ];
}
