import { keys } from '#db/keys';
import { concurrentChange, transact, type TransactStep, retryWhenStale, CASCADE_STALE } from '#db/transact';
import { notFound } from '#shared/errors';
import type { EnvRole } from '#auth/permissions';
import { actorAccount, type AppContext } from '#shared/context';
import { accessToEnvironment } from './environments.ts';
import { retentionOfProject } from './projects.ts';
import { joinSteps, memberHoldsStep, roleTarget, roleTargetKeys } from './role-target.ts';
import { onContention } from '#db/retry';
import { changeAudit, creationAudit } from '#shared/audit';
import { queryPartition } from '#db/query';
import { batchGet, keyId } from '#db/batch-get';
import { deleteStep, putStep } from '#db/steps';
import { envRoleEntity, type EnvRoleAssignment } from './env-role-entity.ts';

export type { EnvRoleAssignment } from './env-role-entity.ts';

export const toEnvRoleOut = (a: EnvRoleAssignment) => ({
  id: a.id,
  environment_id: a.environment_id,
  user_id: a.user_id,
  role: a.role,
});
export const NOT_AUTHORIZED_ROLES = 'Not authorized to manage environment roles';
const MANAGE_ROLES = { key: 'env.roles.manage', detail: NOT_AUTHORIZED_ROLES } as const;

/** Writes (or replaces) a user's role in an environment, keeping the assignment id stable across updates. */
export function envRoleStep(
  projectId: string,
  envId: string,
  userId: string,
  role: EnvRole,
  id: string,
  auditHead?: string | null,
): TransactStep {
  return putStep({
    ...keys.envRole(projectId, envId, userId),
    type: 'env_role',
    project_id: projectId,
    id,
    environment_id: envId,
    user_id: userId,
    role,
    ...(auditHead ? { audit_head: auditHead } : {}),
  });
}

/** Thrown when the target's membership changed between read and write: read again. */
const CHANGED = concurrentChange();

/**
 * POST /environments/{id}/roles: upserts a role. Its target must be a member (`roleTarget`): the
 * owner's assignment may make one (SPEC), told by mail, logged as `member.create`; anyone else's
 * assignment to a non-member is refused like an unknown id. The role is written only while the
 * membership is there (`memberHoldsStep`); a membership changed meanwhile is read again.
 */
export async function assignEnvRole(
  ctx: AppContext,
  input: { environment_id: string; user_id: string; role: EnvRole },
): Promise<EnvRoleAssignment> {
  const { environment_id: envId, user_id: userId, role } = input;
  const target = (projectId: string) => [...roleTargetKeys(projectId, userId), keys.envRole(projectId, envId, userId)];
  const { access, env } = await accessToEnvironment(envId, actorAccount(ctx).id, {
    extra: target,
    permission: MANAGE_ROLES,
  });
  const projectId = env.project_id;
  let items = access.extra;
  const { assignment } = await onContention(
    async (attempt) => {
      if (attempt > 1) items = await batchGet(target(projectId));
      const { account, member } = roleTarget(access, items, userId);
      const existing = envRoleEntity.decodeFound(items.get(keyId(keys.envRole(projectId, envId, userId))));
      const assignment: EnvRoleAssignment = {
        id: existing?.id ?? ctx.ids.newId(),
        environment_id: env.id,
        user_id: userId,
        role,
      };
      const joins = !member;
      const entity = {
        id: assignment.id,
        project_id: projectId,
        environment_id: env.id,
        audit_head: existing?.audit_head,
      };
      // A new assignment's entry is its creation; a changed role's its latest (the same role again: no entry).
      let auditSteps: TransactStep[] = [];
      let head = existing?.audit_head;
      if (!existing)
        auditSteps = creationAudit(ctx, 'env_role', entity, toEnvRoleOut(assignment), {
          summary: joins ? { made_member: true } : undefined,
        });
      else if (existing.role !== role) {
        const audit = changeAudit(
          ctx,
          'env_role',
          'update',
          entity,
          { before: { role: existing.role }, after: { role } },
          await retentionOfProject(access.project),
        );
        [auditSteps, head] = [audit.steps, audit.head];
      }
      const now = ctx.clock.now().toISOString();
      await transact([
        envRoleStep(projectId, env.id, userId, role, assignment.id, head),
        ...auditSteps,
        ...(joins
          ? joinSteps(
              ctx,
              access.project,
              account,
              'env_role',
              `the role ${role} in the environment "${env.name}"`,
              now,
              CHANGED,
            )
          : [memberHoldsStep(projectId, userId, CHANGED)]),
      ]);
      return { assignment };
    },
    (err) => err === CHANGED || err === CASCADE_STALE,
  );
  return assignment;
}

/** GET /environments/{id}/roles: the environment's role assignments, for any member. */
export async function listEnvRoles(ctx: AppContext, input: { environment_id: string }): Promise<EnvRoleAssignment[]> {
  const { env } = await accessToEnvironment(input.environment_id, actorAccount(ctx).id);
  const items = await queryPartition(keys.projectPK(env.project_id), keys.envRolePrefix(env.id));
  return items.map((i) => toEnvRoleOut(envRoleEntity.decode(i)));
}

// Re-run from a new read when its write went stale (a concurrent change moved what it read, its audit head included: db/transact.ts).
export const removeEnvRole = (...args: Parameters<typeof removeEnvRoleOnce>) =>
  retryWhenStale(() => removeEnvRoleOnce(...args));

async function removeEnvRoleOnce(ctx: AppContext, input: { environment_id: string; user_id: string }): Promise<void> {
  const roleKey = (projectId: string) => keys.envRole(projectId, input.environment_id, input.user_id);
  const { access, env } = await accessToEnvironment(input.environment_id, actorAccount(ctx).id, {
    extra: (p) => [roleKey(p)],
    permission: MANAGE_ROLES,
  });
  // The assignment is not an item by id: its 404 comes after the environment's 403.
  const existing = envRoleEntity.decodeFound(access.extra.get(keyId(roleKey(env.project_id))));
  if (!existing) throw notFound('Role assignment not found');
  const audit = changeAudit(
    ctx,
    'env_role',
    'delete',
    { id: existing.id, project_id: env.project_id, environment_id: env.id, audit_head: existing.audit_head },
    {
      before: toEnvRoleOut(existing),
      after: null,
    },
    await retentionOfProject(access.project),
  );
  await transact([
    deleteStep(keys.envRole(env.project_id, env.id, input.user_id), notFound('Role assignment not found')),
    ...audit.steps,
  ]);
}
