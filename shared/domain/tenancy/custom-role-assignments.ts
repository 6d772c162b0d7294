import { keys } from '#db/keys';
import { transact, type TransactStep, concurrentChange, retryWhenStale, CASCADE_STALE } from '#db/transact';
import { invalid, notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { grantOf, loadAccess } from './access.ts';
import { ENV_NOT_IN_PROJECT, envLiveCheck } from './env-scope.ts';
import { retentionOfProject } from './projects.ts';
import type { Project } from './project-types.ts';
import { joinSteps, roleTarget, roleTargetKeys, type MemberItem } from './role-target.ts';
import type { Account } from '#domain/identity';
import { changeAudit, creationAudit } from '#shared/audit';
import { REFS_VERSION } from '#db/refs';
import type { Key } from '#db/lookup';
import { batchGet, keyId } from '#db/batch-get';
import { setFieldsStep, isLive, stillLiveStep } from '#db/live';
import { putNewStep, putWhenStep } from '#db/steps';
import { addGrantsStep, replaceGrantsStep } from '#db/grants';
import { onContention } from '#db/retry';
import { customRoleAssignmentEntity, customRoleEntity } from './custom-role-entity.ts';
import { membershipEntity } from './membership-entity.ts';
import {
  ASSIGNMENT_NOT_FOUND,
  CUSTOM_ROLE_NOT_FOUND,
  GRANTS,
  accessWithCustomRole,
  assignmentEntity,
  assignmentsOf,
  auditedAssignment,
  grantsOfRole,
  roleFrom,
  withdrawGrantSteps,
  type CustomRoleAssignment,
} from './custom-role-model.ts';

/** Who holds a custom role, and where: assignments, mirrored as grants on the member item. */

/** GET /projects/{id}/custom-roles/{role_id}/assignments: who holds a live role, and where (any member). */
export async function listAssignments(
  ctx: AppContext,
  input: { project_id: string; role_id: string; updated_since?: string },
): Promise<CustomRoleAssignment[]> {
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
  access.requireOwnerRight('project.manage');
  const projectId = access.project.id;
  const days = await retentionOfProject(access.project);
  let items = access.extra;
  // A member or assignment changed between read and write (CHANGED): read again after a jittered
  // backoff, so writers that collided do not collide again in lockstep.
  const { assignment } = await onContention(
    async (attempt) => {
      if (attempt > 1) items = await batchGet(readKeys);
      const get = (key: Key) => items.get(keyId(key));
      const role = customRoleEntity.decodeFound(get(keys.customRole(projectId, roleId)));
      if (!isLive(role)) throw notFound(CUSTOM_ROLE_NOT_FOUND);
      const { account, member } = roleTarget(access, items, userId);
      if (envId && !isLive(get(keys.environment(projectId, envId)))) throw invalid(ENV_NOT_IN_PROJECT);
      const existing = customRoleAssignmentEntity.decodeFound(
        get(keys.customRoleAssignment(projectId, roleId, userId)),
      );
      const now = ctx.clock.now().toISOString();
      const assignment: CustomRoleAssignment = {
        id: existing?.id ?? ctx.ids.newId(),
        role_id: roleId,
        project_id: projectId,
        user_id: userId,
        environment_id: envId,
        created_at: existing?.created_at ?? now,
        updated_at: now,
        deleted_at: null,
      };
      // A first (or renewed, after a withdrawal) assignment is a creation; moving a live one to another scope its latest change.
      const live = existing !== undefined && isLive(existing);
      const moved = live && existing.environment_id !== envId;
      const audit = live
        ? moved
          ? changeAudit(
              ctx,
              'custom_role_assignment',
              'update',
              assignmentEntity(existing, existing.audit_head),
              { before: auditedAssignment(existing), after: auditedAssignment(assignment) },
              days,
            )
          : undefined
        : {
            steps: creationAudit(
              ctx,
              'custom_role_assignment',
              assignmentEntity(assignment),
              auditedAssignment(assignment),
            ),
            head: existing?.audit_head ?? null,
          };
      const head = audit?.head ?? existing?.audit_head ?? null;
      const item = {
        ...keys.customRoleAssignment(projectId, roleId, userId),
        type: 'custom_role_assignment',
        ...assignment,
        ...(head ? { audit_head: head } : {}),
      };
      const steps: TransactStep[] = [
        ...(audit?.steps ?? []),
        existing ? putWhenStep(item, { updated_at: existing.updated_at }, CHANGED) : putNewStep(item, CHANGED),
        // A role deleted meanwhile must not gain an assignment its deletion's clean-up would miss.
        stillLiveStep(keys.customRole(projectId, roleId), notFound(CUSTOM_ROLE_NOT_FOUND)),
        ...(envId ? [envLiveCheck(projectId, envId)] : []),
        ...(member
          ? grantSteps(projectId, userId, member, roleId, grantOf(roleId, envId), live)
          : joinWithGrantSteps(
              ctx,
              access.project,
              account,
              grantOf(roleId, envId),
              `the custom role "${role!.name}"`,
              now,
            )),
      ];
      await transact(steps);
      return { assignment };
    },
    (err) => err === CHANGED || err === CASCADE_STALE,
  );
  return assignment;
}

/** An owner's assignment to a non-member: they join (`joinSteps`) holding the grant. */
function joinWithGrantSteps(
  ctx: AppContext,
  project: Project,
  account: Account,
  grant: string,
  told: string,
  now: string,
): TransactStep[] {
  const memberSK = keys.member(project.id, account.id).SK;
  return joinSteps(ctx, project, account, 'custom_role_assignment', told, now, CHANGED).map((step) =>
    step.Put?.Item?.SK === memberSK
      ? { ...step, Put: { ...step.Put, Item: { ...step.Put.Item, [GRANTS]: new Set([grant]), [REFS_VERSION]: 1 } } }
      : step,
  );
}

/**
 * The member-item writes that make `grant` the member's only grant of `roleId`. One BatchGet is no
 * snapshot: beside a live assignment (`assigned`), the member item may be read from before the write
 * that made that assignment, its grant not yet there. So only a first assignment adds to the set
 * unguarded; any other writes the whole set, guarded by the version read, and a stale read is refused
 * and read again.
 */
function grantSteps(
  projectId: string,
  userId: string,
  member: MemberItem,
  roleId: string,
  grant: string,
  assigned: boolean,
): TransactStep[] {
  const stale = grantsOfRole(member, roleId).filter((g) => g !== grant);
  const key = keys.member(projectId, userId);
  // Adding to a set is safe under concurrency; the version bump tells whole-set writers that it changed.
  if (!stale.length && !assigned) return [addGrantsStep(key, GRANTS, [grant], CHANGED)];
  const next = new Set([...(member.custom_role_grants ?? [])].filter((g) => !stale.includes(g)));
  next.add(grant);
  return [replaceGrantsStep(key, GRANTS, next, member, CHANGED)];
}

/** Withdraws a user's assignment of a role (soft delete) and the grant mirrored on their membership. */
// Re-run from a new read when its write went stale (a concurrent change moved what it read, its audit head included: db/transact.ts).
export const removeAssignment = (...args: Parameters<typeof removeAssignmentOnce>) =>
  retryWhenStale(() => removeAssignmentOnce(...args));

async function removeAssignmentOnce(
  ctx: AppContext,
  input: { project_id: string; role_id: string; user_id: string },
): Promise<void> {
  const { role_id: roleId, user_id: userId } = input;
  const access = await loadAccess(input.project_id, actorAccount(ctx).id, {
    extra: assignmentReadKeys(input.project_id, roleId, userId),
  });
  access.requireOwnerRight('project.manage');
  roleFrom(access, roleId);
  const projectId = access.project.id;
  const assignment = customRoleAssignmentEntity.decodeFound(
    access.extra.get(keyId(keys.customRoleAssignment(projectId, roleId, userId))),
  );
  if (!isLive(assignment)) throw notFound(ASSIGNMENT_NOT_FOUND);
  const member = membershipEntity.decodeFound(access.extra.get(keyId(keys.member(projectId, userId))));
  const now = ctx.clock.now().toISOString();
  const audit = changeAudit(
    ctx,
    'custom_role_assignment',
    'delete',
    assignmentEntity(assignment!, assignment!.audit_head),
    { before: auditedAssignment(assignment!), after: null },
    await retentionOfProject(access.project),
  );
  await transact([
    // First, so that its refusal is the one given when the assignment moved too. Guarded by the member's version as
    // read: read beside the assignment but before the write that moved it, it would withdraw the grant moved away and
    // leave the one that replaced it.
    ...withdrawGrantSteps(member, roleId, CASCADE_STALE),
    setFieldsStep(
      keys.customRoleAssignment(projectId, roleId, userId),
      { deleted_at: now, updated_at: now, audit_head: audit.head },
      notFound(ASSIGNMENT_NOT_FOUND),
    ),
    ...audit.steps,
  ]);
}
