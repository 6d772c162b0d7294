import { keys } from '#db/keys';
import type { TransactStep } from '#db/transact';
import { notFound, type DomainError } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { loadAccess, parseGrant, type Membership, type ProjectAccess } from './access.ts';
import type { NameScope } from '#db/unique-names';
import { queryPrefix } from '#db/query';
import {
  customRoleAssignmentEntity,
  customRoleEntity,
  type CustomRole,
  type CustomRoleAssignment,
} from './custom-role-entity.ts';
import { keyId } from '#db/batch-get';
import { visible, isLive, visibleFilter } from '#db/live';
import { withdrawGrantsStep } from '#db/grants';

/** What custom roles and their assignments are, how they are read, and the grants mirrored on members. */

/** The member item's attribute that mirrors its custom-role grants (where access reads them). */
export const GRANTS = 'custom_role_grants';

export type { CustomRole, CustomRoleAssignment } from './custom-role-entity.ts';

/** What audit entries record of roles and assignments: what their readers see of them. */
export const auditedRole = (r: CustomRole) => {
  const { updated_at: _u, deleted_at: _d, ...shown } = toCustomRoleOut(r);
  return shown;
};
export const auditedAssignment = (a: CustomRoleAssignment) => {
  const { updated_at: _u, deleted_at: _d, ...shown } = toAssignmentOut(a);
  return shown;
};
/** An assignment's entries are about the assignment, in its environment (null: project-wide). */
export const assignmentEntity = (a: CustomRoleAssignment, head?: string | null) => ({
  id: a.id,
  project_id: a.project_id,
  environment_id: a.environment_id,
  audit_head: head,
});

export const toCustomRoleOut = (r: CustomRole) => ({
  id: r.id,
  project_id: r.project_id,
  name: r.name,
  description: r.description ?? null,
  permissions: r.permissions,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});
export const toAssignmentOut = (a: CustomRoleAssignment) => ({
  id: a.id,
  role_id: a.role_id,
  project_id: a.project_id,
  user_id: a.user_id,
  environment_id: a.environment_id,
  updated_at: a.updated_at,
  deleted_at: a.deleted_at,
});

export const CUSTOM_ROLE_NOT_FOUND = 'Custom role not found';
export const ASSIGNMENT_NOT_FOUND = 'Custom role assignment not found';
export const roleNames = (projectId: string): NameScope => ({
  projectId,
  kind: 'CROLE',
  scopeId: projectId,
  takenDetail: 'Custom role with this name already exists in this project',
});

export const grantsOfRole = (member: Membership | undefined, roleId: string) =>
  [...(member?.custom_role_grants ?? [])].filter((g) => parseGrant(g).roleId === roleId);

/** The caller's access to a project, read with one of its custom roles (see `roleFrom`). */
export const accessWithCustomRole = (ctx: AppContext, projectId: string, roleId: string) =>
  loadAccess(projectId, actorAccount(ctx).id, { extra: [keys.customRole(projectId, roleId)] });

/** The live role from the caller's access BatchGet (`extra` must include `keys.customRole`), or 404. */
export function roleFrom(access: ProjectAccess, roleId: string): CustomRole {
  const role = customRoleEntity.decodeFound(access.extra.get(keyId(keys.customRole(access.project.id, roleId))));
  if (!isLive(role)) throw notFound(CUSTOM_ROLE_NOT_FOUND);
  return role!;
}

export async function assignmentsOf(
  projectId: string,
  roleId: string,
  updatedSince?: string,
): Promise<CustomRoleAssignment[]> {
  // The assignment key with an empty user id is the prefix of all of the role's assignments.
  const all = (
    await queryPrefix(projectId, keys.customRoleAssignment(projectId, roleId, '').SK, visibleFilter(updatedSince))
  ).map(customRoleAssignmentEntity.decode);
  return visible(all, updatedSince).sort((a, b) => a.created_at.localeCompare(b.created_at));
}

/**
 * Removes every grant of `roleId` from a member item (none when absent); with `staleWith`, only while the item is
 * as read (its version), else that refusal.
 */
export function withdrawGrantSteps(
  member: Membership | undefined,
  roleId: string,
  staleWith?: DomainError,
): TransactStep[] {
  const grants = grantsOfRole(member, roleId);
  if (!member || !grants.length) return [];
  const key = keys.member(member.project_id, member.user_id);
  return [withdrawGrantsStep(key, GRANTS, grants, staleWith && { asRead: member, failWith: staleWith })];
}
