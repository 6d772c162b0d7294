import { keys } from '#db/keys';
import { transact, type TransactStep } from '#db/transact';
import { notFound } from '#shared/errors';
import type { EnvRole } from '#auth/permissions';
import { actorAccount, type AppContext } from '#shared/context';
import type { Key } from '#db/lookup';
import { accessToEnvironment } from './environments';
import { membershipSteps } from './projects';
import { queryPartition } from '#db/query';
import { keyId } from '#db/batch-get';
import { deleteStep, putStep } from '#db/steps';

export interface EnvRoleAssignment {
  id: string;
  environment_id: string;
  user_id: string;
  role: EnvRole;
}

export const toEnvRoleOut = (a: EnvRoleAssignment) => ({ id: a.id, environment_id: a.environment_id, user_id: a.user_id, role: a.role });
export const NOT_AUTHORIZED_ROLES = 'Not authorized to manage environment roles';

/** Writes (or replaces) a user's role in an environment, keeping the assignment id stable across updates. */
export function envRoleStep(projectId: string, envId: string, userId: string, role: EnvRole, id: string): TransactStep {
  return putStep({ ...keys.envRole(projectId, envId, userId), type: 'env_role', project_id: projectId, id, environment_id: envId, user_id: userId, role });
}

/** What assigning an environment role reads about its target, alongside the caller's access (one BatchGet). */
const envRoleTargetKeys = (projectId: string, envId: string, userId: string): Key[] => [
  keys.account(userId), keys.member(projectId, userId), keys.envRole(projectId, envId, userId),
];

/**
 * POST /environments/{id}/roles: upserts a role. The owner's assignment also makes the target a
 * project member; an environment administrator's does not (SPEC): the administrator cannot grant
 * entry into the project.
 */
export async function assignEnvRole(ctx: AppContext, input: { environment_id: string; user_id: string; role: EnvRole }): Promise<EnvRoleAssignment> {
  const { environment_id: envId, user_id: userId, role } = input;
  const target = (projectId: string) => envRoleTargetKeys(projectId, envId, userId);
  const { access, env } = await accessToEnvironment(envId, actorAccount(ctx).id, undefined, target);
  access.require('env.roles.manage', NOT_AUTHORIZED_ROLES, env.id);
  const projectId = env.project_id;
  const [accountKey, memberKey, roleKey] = target(projectId);
  const found = access.extra;
  if (!found.get(keyId(accountKey))) throw notFound('User not found');
  const existing = found.get(keyId(roleKey)) as EnvRoleAssignment | undefined;
  const assignment: EnvRoleAssignment = { id: existing?.id ?? ctx.ids.newId(), environment_id: env.id, user_id: userId, role };
  const steps = [envRoleStep(projectId, env.id, userId, role, assignment.id)];
  if (access.isOwner && !found.get(keyId(memberKey))) steps.push(...membershipSteps(projectId, userId, 'member', ctx.clock.now().toISOString()));
  await transact(steps);
  return assignment;
}

/** GET /environments/{id}/roles: the environment's role assignments, for any member. */
export async function listEnvRoles(ctx: AppContext, input: { environment_id: string }): Promise<EnvRoleAssignment[]> {
  const { env } = await accessToEnvironment(input.environment_id, actorAccount(ctx).id);
  const items = await queryPartition<EnvRoleAssignment>(keys.projectPK(env.project_id), keys.envRolePrefix(env.id));
  return items.map(toEnvRoleOut);
}

export async function removeEnvRole(ctx: AppContext, input: { environment_id: string; user_id: string }): Promise<void> {
  const { access, env } = await accessToEnvironment(input.environment_id, actorAccount(ctx).id);
  access.require('env.roles.manage', NOT_AUTHORIZED_ROLES, env.id);
  await transact([deleteStep(keys.envRole(env.project_id, env.id, input.user_id), notFound('Role assignment not found'))]);
}
