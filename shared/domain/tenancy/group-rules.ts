/** What groups and subgroups share: what a reader and an audit entry see of one, the refusals, name scopes and list order. */
import type { NameScope } from '#db/unique-names';
import { compareText } from '#shared/text';
import { text } from '#shared/schemas';
import { lazySchema } from '#shared/lazy-schema';
import type { Group, Subgroup } from './group-entity.ts';

/** What an audit entry records of a group or subgroup: what its readers see of it. */
export const auditedGroup = (g: Group | Subgroup) => {
  const { updated_at: _u, deleted_at: _d, ...shown } = 'group_id' in g ? toSubgroupOut(g) : toGroupOut(g);
  return shown;
};
export const kindOf = (g: Group | Subgroup) => ('group_id' in g ? 'subgroup' : 'group');

export const toGroupOut = (g: Group) => ({
  id: g.id,
  project_id: g.project_id,
  environment_id: g.environment_id,
  name: g.name,
  description: g.description ?? null,
  updated_at: g.updated_at,
  deleted_at: g.deleted_at,
});
export const toSubgroupOut = (s: Subgroup) => ({
  id: s.id,
  project_id: s.project_id,
  environment_id: s.environment_id,
  group_id: s.group_id,
  name: s.name,
  description: s.description ?? null,
  updated_at: s.updated_at,
  deleted_at: s.deleted_at,
});

export const GROUP_NOT_FOUND = 'Group not found';
export const SUBGROUP_NOT_FOUND = 'Subgroup not found';
/** A subgroup's parent must be a live group of the same environment. */
export const GROUP_NOT_IN_ENV = 'Group not found or does not belong to environment';
/** Groups and subgroups share the groups.* permissions. */
export const NOT_AUTHORIZED_VIEW_GROUPS = 'Not authorized to view groups in this environment';
export const NOT_AUTHORIZED_MANAGE_GROUPS = 'Not authorized to manage groups in this environment';

/** A group or subgroup description (POST and PATCH /groups, /subgroups; import documents). */
export const groupDescription = lazySchema(() => text(2000));

/** Group names are unique per environment (a name sentinel, ignoring case). */
export const groupNames = (projectId: string, envId: string): NameScope => ({
  projectId,
  kind: 'GROUP',
  scopeId: envId,
  takenDetail: 'Group with this name already exists in this environment',
});
export const subgroupNames = (projectId: string, groupId: string): NameScope => ({
  projectId,
  kind: 'SUBGROUP',
  scopeId: groupId,
  takenDetail: 'Subgroup with this name already exists in this group',
});

/** Alphabetical, ignoring case; equal names (subgroups of different parents) in creation order. */
export const byNameThenAge = (a: { name: string; created_at: string }, b: { name: string; created_at: string }) =>
  compareText(a.name, b.name) || a.created_at.localeCompare(b.created_at);

/** Changing a group or subgroup takes groups.manage in its environment. */
export const MANAGE = { key: 'groups.manage', detail: NOT_AUTHORIZED_MANAGE_GROUPS } as const;

export interface InEnvironment {
  project_id: string;
  environment_id: string;
}
