import { keys } from '#db/keys';
import { transact, type TransactStep, concurrentChange, retryWhenStale, CASCADE_STALE } from '#db/transact';
import { invalid, notFound } from '#shared/errors';
import type { Permission } from '#auth/permissions';
import { actorAccount, type AppContext } from '#shared/context';
import { OWNER_REQUIRED, accessToProject, grantOf, loadAccess, parseGrant, type Membership, type ProjectAccess } from './access';
import { ENV_NOT_IN_PROJECT, envLiveCheck } from './env-scope';
import { planOfProject, retentionOfProject } from './projects';
import type { Project } from './project-types';
import { joinSteps, roleTarget, roleTargetKeys, type MemberItem } from './role-target';
import type { Account } from '#domain/identity';
import { changeAudit, creationAudit } from '#shared/audit';
import { claimNameStep, namedWriteSteps, type NameScope } from '#db/unique-names';
import { REFS_VERSION, refsAsRead, refsName } from '#db/refs';
import type { Key } from '#db/lookup';
import { queryPrefix } from '#db/query';
import { compareText } from '#shared/text';
import { batchGet, keyId } from '#db/batch-get';
import { visible, setFieldsStep, isLive, stillLiveStep, visibleFilter } from '#db/live';
import { existingSetStep, counterStep, putNewStep, putWhenStep } from '#db/steps';
import { takeQuotaStep, CUSTOM_ROLES_QUOTA } from '#domain/billing';
import { onContention } from '#db/retry';
import { customRoleAssignmentEntity, customRoleEntity, type CustomRole, type CustomRoleAssignment } from './custom-role-entity';
import { membershipEntity } from './membership-entity';

export type { CustomRole, CustomRoleAssignment } from './custom-role-entity';

/** What audit entries record of roles and assignments: what their readers see of them. */
const auditedRole = (r: CustomRole) => {
  const { updated_at: _u, deleted_at: _d, ...shown } = toCustomRoleOut(r);
  return shown;
};
const auditedAssignment = (a: CustomRoleAssignment) => {
  const { updated_at: _u, deleted_at: _d, ...shown } = toAssignmentOut(a);
  return shown;
};
/** An assignment's entries are about the assignment, in its environment (null: project-wide). */
const assignmentEntity = (a: CustomRoleAssignment, head?: string | null) => ({ id: a.id, project_id: a.project_id, environment_id: a.environment_id, audit_head: head });

export const toCustomRoleOut = (r: CustomRole) => ({
  id: r.id, project_id: r.project_id, name: r.name, description: r.description ?? null, permissions: r.permissions, updated_at: r.updated_at, deleted_at: r.deleted_at,
});
export const toAssignmentOut = (a: CustomRoleAssignment) => ({
  id: a.id, role_id: a.role_id, project_id: a.project_id, user_id: a.user_id, environment_id: a.environment_id, updated_at: a.updated_at, deleted_at: a.deleted_at,
});

export const CUSTOM_ROLE_NOT_FOUND = 'Custom role not found';
export const ASSIGNMENT_NOT_FOUND = 'Custom role assignment not found';
const roleNames = (projectId: string): NameScope => ({
  projectId, kind: 'CROLE', scopeId: projectId, takenDetail: 'Custom role with this name already exists in this project',
});

const grantsOfRole = (member: Membership | undefined, roleId: string) => [...(member?.custom_role_grants ?? [])].filter((g) => parseGrant(g).roleId === roleId);

/** The caller's access to a project, read with one of its custom roles (see `roleFrom`). */
const accessWithCustomRole = (ctx: AppContext, projectId: string, roleId: string) =>
  loadAccess(projectId, actorAccount(ctx).id, { extra: [keys.customRole(projectId, roleId)] });

/** The live role from the caller's access BatchGet (`extra` must include `keys.customRole`), or 404. */
function roleFrom(access: ProjectAccess, roleId: string): CustomRole {
  const role = customRoleEntity.decodeFound(access.extra.get(keyId(keys.customRole(access.project.id, roleId))));
  if (!isLive(role)) throw notFound(CUSTOM_ROLE_NOT_FOUND);
  return role!;
}

/** GET /projects/{id}/custom-roles: any member. */
export async function listCustomRoles(ctx: AppContext, input: { project_id: string; updated_since?: string }): Promise<CustomRole[]> {
  await accessToProject(input.project_id, actorAccount(ctx).id);
  const roles = visible((await queryPrefix(input.project_id, keys.customRolePrefix, visibleFilter(input.updated_since))).map(customRoleEntity.decode), input.updated_since);
  return roles.sort((a, b) => compareText(a.name, b.name));
}

/** Creates a role within the plan's `rbac_custom_roles_limit`, counted on the project in the same transaction. */
export async function createCustomRole(
  ctx: AppContext,
  input: { project_id: string; name: string; description?: string | null; permissions: Permission[] },
): Promise<CustomRole> {
  const access = await accessToProject(input.project_id, actorAccount(ctx).id);
  access.require('project.manage', OWNER_REQUIRED);
  const plan = await planOfProject(access.project);
  const now = ctx.clock.now().toISOString();
  const role: CustomRole = {
    id: ctx.ids.newId(), project_id: access.project.id, name: input.name, description: input.description ?? null,
    permissions: [...new Set(input.permissions)], created_at: now, updated_at: now, deleted_at: null,
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
export const updateCustomRole = (ctx: AppContext, input: CustomRolePatch): Promise<CustomRole> => retryWhenStale(() => updateOnce(ctx, input));
type CustomRolePatch = { project_id: string; id: string; name?: string; description?: string | null; permissions?: Permission[] };

async function updateOnce(ctx: AppContext, input: CustomRolePatch): Promise<CustomRole> {
  const { project_id, id: roleId, ...patch } = input;
  const access = await accessWithCustomRole(ctx, project_id, roleId);
  access.require('project.manage', OWNER_REQUIRED);
  const role = roleFrom(access, roleId);
  const permissions = patch.permissions && [...new Set(patch.permissions)];
  const updated_at = ctx.clock.now().toISOString();
  const updated: CustomRole = {
    ...role, ...(patch.name !== undefined && { name: patch.name }), ...(patch.description !== undefined && { description: patch.description }),
    ...(permissions && { permissions }), updated_at,
  };
  const changed = JSON.stringify(auditedRole(updated)) !== JSON.stringify(auditedRole(role));
  const audit = changed
    ? changeAudit(ctx, 'custom_role', 'update', role, { before: auditedRole(role), after: auditedRole(updated) }, await retentionOfProject(access.project))
    : undefined;
  await transact([
    ...namedWriteSteps(roleNames(role.project_id), { ...role, key: keys.customRole(role.project_id, role.id) }, { name: patch.name, description: patch.description, permissions, updated_at, audit_head: audit?.head }, notFound(CUSTOM_ROLE_NOT_FOUND)),
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
  access.require('project.manage', OWNER_REQUIRED);
  const role = roleFrom(access, input.id);
  const now = ctx.clock.now().toISOString();
  // The role's entry stands for the withdrawal of its assignments that follows (inert once the role is deleted).
  const audit = changeAudit(ctx, 'custom_role', 'delete', role, { before: auditedRole(role), after: null }, await retentionOfProject(access.project));
  await transact([
    ...namedWriteSteps(roleNames(role.project_id), { ...role, key: keys.customRole(role.project_id, role.id) }, { deleted_at: now, updated_at: now, audit_head: audit.head }, notFound(CUSTOM_ROLE_NOT_FOUND)),
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
        existingSetStep(keys.customRoleAssignment(role.project_id, role.id, a.user_id), { deleted_at: now, updated_at: now }),
        ...withdrawGrantSteps(membershipEntity.decodeFound(members.get(keyId(keys.member(role.project_id, a.user_id)))), role.id),
      ]),
    );
  }
}

// ---- assignments -----------------------------------------------------------------------------

async function assignmentsOf(projectId: string, roleId: string, updatedSince?: string): Promise<CustomRoleAssignment[]> {
  // The assignment key with an empty user id is the prefix of all of the role's assignments.
  const all = (await queryPrefix(projectId, keys.customRoleAssignment(projectId, roleId, '').SK, visibleFilter(updatedSince))).map(customRoleAssignmentEntity.decode);
  return visible(all, updatedSince).sort((a, b) => a.created_at.localeCompare(b.created_at));
}

/** GET /projects/{id}/custom-roles/{role_id}/assignments: who holds a live role, and where (any member). */
export async function listAssignments(ctx: AppContext, input: { project_id: string; role_id: string; updated_since?: string }): Promise<CustomRoleAssignment[]> {
  const access = await accessWithCustomRole(ctx, input.project_id, input.role_id);
  roleFrom(access, input.role_id);
  return assignmentsOf(input.project_id, input.role_id, input.updated_since);
}

/** What an assignment reads besides the caller's access; passed as `extra` to `loadAccess` so it is one BatchGet. */
function assignmentReadKeys(projectId: string, roleId: string, userId: string, envId?: string | null): Key[] {
  return [
    keys.customRole(projectId, roleId),
    ...roleTargetKeys(projectId, userId),
    keys.customRoleAssignment(projectId, roleId, userId),
    ...(envId ? [keys.environment(projectId, envId)] : []),
  ];
}

/** Thrown (by identity) when the member or assignment changed between read and write: read again. */
const CHANGED = concurrentChange();

/**
 * Gives `userId` a custom role, project-wide (`envId` null) or in one environment; assigning again
 * moves the assignment (same id). The grant is mirrored on the member item in the same transaction
 * (that is where access reads it). Its target must be a member (`roleTarget`): the owner's
 * assignment may make one, as the owner's environment-role assignment does (told by mail, logged as
 * `member.create`); anyone else's assignment to a non-member is refused like an unknown id.
 */
export async function assignCustomRole(
  ctx: AppContext,
  input: { project_id: string; role_id: string; user_id: string; environment_id?: string | null },
): Promise<CustomRoleAssignment> {
  const { role_id: roleId, user_id: userId } = input;
  const envId = input.environment_id ?? null;
  const readKeys = assignmentReadKeys(input.project_id, roleId, userId, envId);
  const access = await loadAccess(input.project_id, actorAccount(ctx).id, { extra: readKeys });
  access.require('project.manage', OWNER_REQUIRED);
  const projectId = access.project.id;
  const days = await retentionOfProject(access.project);
  let items = access.extra;
  // A member or assignment changed between read and write (CHANGED): read again after a jittered
  // backoff, so writers that collided do not collide again in lockstep.
  const { assignment } = await onContention(async (attempt) => {
    if (attempt > 1) items = await batchGet(readKeys);
    const get = (key: Key) => items.get(keyId(key));
    const role = customRoleEntity.decodeFound(get(keys.customRole(projectId, roleId)));
    if (!isLive(role)) throw notFound(CUSTOM_ROLE_NOT_FOUND);
    const { account, member } = roleTarget(access, items, userId);
    if (envId && !isLive(get(keys.environment(projectId, envId)))) throw invalid(ENV_NOT_IN_PROJECT);
    const existing = customRoleAssignmentEntity.decodeFound(get(keys.customRoleAssignment(projectId, roleId, userId)));
    const now = ctx.clock.now().toISOString();
    const assignment: CustomRoleAssignment = {
      id: existing?.id ?? ctx.ids.newId(), role_id: roleId, project_id: projectId, user_id: userId, environment_id: envId,
      created_at: existing?.created_at ?? now, updated_at: now, deleted_at: null,
    };
    // A first (or renewed, after a withdrawal) assignment is a creation; moving a live one to another scope its latest change.
    const live = existing !== undefined && isLive(existing);
    const moved = live && existing.environment_id !== envId;
    const audit = live
      ? moved ? changeAudit(ctx, 'custom_role_assignment', 'update', assignmentEntity(existing, existing.audit_head), { before: auditedAssignment(existing), after: auditedAssignment(assignment) }, days) : undefined
      : { steps: creationAudit(ctx, 'custom_role_assignment', assignmentEntity(assignment), auditedAssignment(assignment)), head: existing?.audit_head ?? null };
    const head = audit?.head ?? existing?.audit_head ?? null;
    const item = { ...keys.customRoleAssignment(projectId, roleId, userId), type: 'custom_role_assignment', ...assignment, ...(head ? { audit_head: head } : {}) };
    const steps: TransactStep[] = [
      ...(audit?.steps ?? []),
      existing
        ? putWhenStep(item, { updated_at: existing.updated_at }, CHANGED)
        : putNewStep(item, CHANGED),
      // A role deleted meanwhile must not gain an assignment its deletion's clean-up would miss.
      stillLiveStep(keys.customRole(projectId, roleId), notFound(CUSTOM_ROLE_NOT_FOUND)),
      ...(envId ? [envLiveCheck(projectId, envId)] : []),
      ...(member ? grantSteps(projectId, userId, member, roleId, grantOf(roleId, envId)) : joinWithGrantSteps(ctx, access.project, account, grantOf(roleId, envId), `the custom role "${role!.name}"`, now)),
    ];
    await transact(steps);
    return { assignment };
  }, (err) => err === CHANGED || err === CASCADE_STALE);
  return assignment;
}

/** An owner's assignment to a non-member: they join (`joinSteps`) holding the grant. */
function joinWithGrantSteps(ctx: AppContext, project: Project, account: Account, grant: string, told: string, now: string): TransactStep[] {
  const memberSK = keys.member(project.id, account.id).SK;
  return joinSteps(ctx, project, account, 'custom_role_assignment', told, now, CHANGED).map((step) =>
    step.Put?.Item?.SK === memberSK ? { ...step, Put: { ...step.Put, Item: { ...step.Put.Item, custom_role_grants: new Set([grant]), [REFS_VERSION]: 1 } } } : step,
  );
}

/** The member-item writes that make `grant` the member's only grant of `roleId`. */
function grantSteps(projectId: string, userId: string, member: MemberItem, roleId: string, grant: string): TransactStep[] {
  const stale = grantsOfRole(member, roleId).filter((g) => g !== grant);
  const Key = keys.member(projectId, userId);
  if (!stale.length) {
    // Adding to a set is safe under concurrency; the version bump tells whole-set writers that it changed.
    return [{
      Update: {
        Key, UpdateExpression: 'ADD custom_role_grants :g, #refs :one', ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: refsName, ExpressionAttributeValues: { ':g': new Set([grant]), ':one': 1 },
      },
      failWith: CHANGED,
    }];
  }
  // Moving a grant replaces the whole set (one attribute cannot be both added to and deleted from in one update), guarded by the version.
  const next = new Set([...(member.custom_role_grants ?? [])].filter((g) => !stale.includes(g)));
  next.add(grant);
  const asRead = refsAsRead(member);
  return [{
    Update: {
      Key,
      UpdateExpression: 'SET custom_role_grants = :set ADD #refs :one',
      ConditionExpression: asRead.expression,
      ExpressionAttributeNames: asRead.names,
      ExpressionAttributeValues: { ':set': next, ':one': 1, ...asRead.values },
    },
    failWith: CHANGED,
  }];
}

/** Removes every grant of `roleId` from a member item (none when absent). */
function withdrawGrantSteps(member: Membership | undefined, roleId: string): TransactStep[] {
  const grants = grantsOfRole(member, roleId);
  if (!member || !grants.length) return [];
  return [{
    Update: {
      Key: keys.member(member.project_id, member.user_id),
      UpdateExpression: 'DELETE custom_role_grants :g ADD #refs :one', ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: refsName, ExpressionAttributeValues: { ':g': new Set(grants), ':one': 1 },
    },
  }];
}

/** Withdraws a user's assignment of a role (soft delete) and the grant mirrored on their membership. */
// Re-run from a new read when its write went stale (a concurrent change moved what it read, its audit head included: db/transact.ts).
export const removeAssignment = (...args: Parameters<typeof removeAssignmentOnce>) => retryWhenStale(() => removeAssignmentOnce(...args));

async function removeAssignmentOnce(ctx: AppContext, input: { project_id: string; role_id: string; user_id: string }): Promise<void> {
  const { role_id: roleId, user_id: userId } = input;
  const access = await loadAccess(input.project_id, actorAccount(ctx).id, { extra: assignmentReadKeys(input.project_id, roleId, userId) });
  access.require('project.manage', OWNER_REQUIRED);
  roleFrom(access, roleId);
  const projectId = access.project.id;
  const assignment = customRoleAssignmentEntity.decodeFound(access.extra.get(keyId(keys.customRoleAssignment(projectId, roleId, userId))));
  if (!isLive(assignment)) throw notFound(ASSIGNMENT_NOT_FOUND);
  const member = membershipEntity.decodeFound(access.extra.get(keyId(keys.member(projectId, userId))));
  const now = ctx.clock.now().toISOString();
  const audit = changeAudit(ctx, 'custom_role_assignment', 'delete', assignmentEntity(assignment!, assignment!.audit_head), { before: auditedAssignment(assignment!), after: null }, await retentionOfProject(access.project));
  await transact([
    setFieldsStep(keys.customRoleAssignment(projectId, roleId, userId), { deleted_at: now, updated_at: now, audit_head: audit.head }, notFound(ASSIGNMENT_NOT_FOUND)),
    ...audit.steps,
    ...withdrawGrantSteps(member, roleId),
  ]);
}
