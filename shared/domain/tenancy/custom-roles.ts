import { keys } from '#db/keys';
import { transact, retryWhenStale } from '#db/transact';
import { notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { accessToProject } from './access.ts';
import { planOfProject, retentionOfProject } from './projects.ts';
import { changeAudit, creationAudit } from '#shared/audit';
import { claimNameStep, namedWriteSteps } from '#db/unique-names';
import { queryPrefix } from '#db/query';
import { compareText } from '#shared/text';
import { batchGet, keyId } from '#db/batch-get';
import { visible, isLive, visibleFilter } from '#db/live';
import { existingSetStep, counterStep, putNewStep } from '#db/steps';
import { takeQuotaStep, CUSTOM_ROLES_QUOTA } from '#domain/billing';
import {
  CUSTOM_ROLE_NOT_FOUND,
  accessWithCustomRole,
  assignmentsOf,
  auditedRole,
  roleFrom,
  roleNames,
  withdrawGrantSteps,
  type CustomRole,
} from './custom-role-model.ts';
import { customRoleEntity } from './custom-role-entity.ts';
import { membershipEntity } from './membership-entity.ts';

export {
  toAssignmentOut,
  toCustomRoleOut,
  type CustomRole,
} from './custom-role-model.ts';
export { assignCustomRole, listAssignments, removeAssignment } from './custom-role-assignments.ts';

/** GET /projects/{id}/custom-roles: any member. */
export async function listCustomRoles(
  ctx: AppContext,
  input: { project_id: string; updated_since?: string },
): Promise<CustomRole[]> {
  await accessToProject(input.project_id, actorAccount(ctx).id);
  const roles = visible(
    (await queryPrefix(input.project_id, keys.customRolePrefix, visibleFilter(input.updated_since))).map(
      customRoleEntity.decode,
    ),
    input.updated_since,
  );
  return roles.sort((a, b) => compareText(a.name, b.name));
}

/** Creates a role within the plan's `rbac_custom_roles_limit`, counted on the project in the same transaction. */
export async function createCustomRole(
  ctx: AppContext,
  input: { project_id: string; name: string; description?: string | null; permissions: CustomRole['permissions'] },
): Promise<CustomRole> {
  const access = await accessToProject(input.project_id, actorAccount(ctx).id);
  access.requireOwnerRight('project.manage');
  const plan = await planOfProject(access.project);
  const now = ctx.clock.now().toISOString();
  const role: CustomRole = {
    id: ctx.ids.newId(),
    project_id: access.project.id,
    name: input.name,
    description: input.description ?? null,
    permissions: [...new Set(input.permissions)],
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  await transact([
    takeQuotaStep(keys.project(role.project_id), 'custom_role_count', plan, CUSTOM_ROLES_QUOTA),
    claimNameStep(roleNames(role.project_id), role.name, role.id),
    putNewStep({ ...keys.customRole(role.project_id, role.id), type: 'custom_role', ...role }),
    ...creationAudit(ctx, 'custom_role', role, auditedRole(role)),
  ]);
  return role;
}

/** Changes take effect on the holders' next request: access reads role definitions live. */
export const updateCustomRole = (ctx: AppContext, input: CustomRolePatch): Promise<CustomRole> =>
  retryWhenStale(() => updateOnce(ctx, input));
type CustomRolePatch = {
  project_id: string;
  id: string;
  name?: string;
  description?: string | null;
  permissions?: CustomRole['permissions'];
};

async function updateOnce(ctx: AppContext, input: CustomRolePatch): Promise<CustomRole> {
  const { project_id, id: roleId, ...patch } = input;
  const access = await accessWithCustomRole(ctx, project_id, roleId);
  access.requireOwnerRight('project.manage');
  const role = roleFrom(access, roleId);
  const permissions = patch.permissions && [...new Set(patch.permissions)];
  const updated_at = ctx.clock.now().toISOString();
  const updated: CustomRole = {
    ...role,
    ...(patch.name !== undefined && { name: patch.name }),
    ...(patch.description !== undefined && { description: patch.description }),
    ...(permissions && { permissions }),
    updated_at,
  };
  const changed = JSON.stringify(auditedRole(updated)) !== JSON.stringify(auditedRole(role));
  const audit = changed
    ? changeAudit(
        ctx,
        'custom_role',
        'update',
        role,
        { before: auditedRole(role), after: auditedRole(updated) },
        await retentionOfProject(access.project),
      )
    : undefined;
  await transact([
    ...namedWriteSteps(
      roleNames(role.project_id),
      { ...role, key: keys.customRole(role.project_id, role.id) },
      { name: patch.name, description: patch.description, permissions, updated_at, audit_head: audit?.head },
      notFound(CUSTOM_ROLE_NOT_FOUND),
    ),
    ...(audit?.steps ?? []),
  ]);
  return updated;
}

/** Assignments of a role that are written per chunk when a deleted role's grants are withdrawn. */
const CLEANUP_CHUNK = 45;

/**
 * Soft-deletes a role: its name and its plan slot are free again at once (one transaction), and
 * from that moment it grants nothing (access ignores deleted role definitions). Its assignments are
 * then withdrawn, and the grants mirrored on members removed, in further transactions; should that
 * be interrupted, what is left is inert.
 */
export async function deleteCustomRole(ctx: AppContext, input: { project_id: string; id: string }): Promise<void> {
  // A rename meanwhile re-runs it from a new read (its name's release is the one of the name read).
  const { role, now } = await retryWhenStale(() => softDeleteRole(ctx, input));
  await withdrawAssignments(role, now);
}

async function softDeleteRole(ctx: AppContext, input: { project_id: string; id: string }) {
  const access = await accessWithCustomRole(ctx, input.project_id, input.id);
  access.requireOwnerRight('project.manage');
  const role = roleFrom(access, input.id);
  const now = ctx.clock.now().toISOString();
  // The role's entry stands for the withdrawal of its assignments that follows (inert once the role is deleted).
  const audit = changeAudit(
    ctx,
    'custom_role',
    'delete',
    role,
    { before: auditedRole(role), after: null },
    await retentionOfProject(access.project),
  );
  await transact([
    ...namedWriteSteps(
      roleNames(role.project_id),
      { ...role, key: keys.customRole(role.project_id, role.id) },
      { deleted_at: now, updated_at: now, audit_head: audit.head },
      notFound(CUSTOM_ROLE_NOT_FOUND),
    ),
    ...audit.steps,
    counterStep(keys.project(role.project_id), { custom_role_count: -1 }),
  ]);
  return { role, now };
}

/** A deleted role's assignments are withdrawn, and the grants mirrored on members removed, a chunk per transaction. */
async function withdrawAssignments(role: CustomRole, now: string): Promise<void> {
  const assignments = (await assignmentsOf(role.project_id, role.id)).filter(isLive);
  for (let i = 0; i < assignments.length; i += CLEANUP_CHUNK) {
    const chunk = assignments.slice(i, i + CLEANUP_CHUNK);
    const members = await batchGet(chunk.map((a) => keys.member(role.project_id, a.user_id)));
    await transact(
      chunk.flatMap((a) => [
        existingSetStep(keys.customRoleAssignment(role.project_id, role.id, a.user_id), {
          deleted_at: now,
          updated_at: now,
        }),
        ...withdrawGrantSteps(
          membershipEntity.decodeFound(members.get(keyId(keys.member(role.project_id, a.user_id)))),
          role.id,
        ),
      ]),
    );
  }
}
