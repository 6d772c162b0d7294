import { keys } from '#db/keys';
import { transact, type TransactStep } from '#db/transact';
import { notFound } from '#shared/errors';
import type { EnvRole } from '#auth/permissions';
import type { AppContext } from '#shared/context';
import { type ProjectAccess } from './access';
import type { Key } from '#db/lookup';
import type { Environment } from './environments';
import { membershipSteps } from './projects';
import { queryPartition } from '#db/query';
import { keyId } from '#db/batch-get';

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
  return {
    Put: {
      Item: { ...keys.envRole(projectId, envId, userId), type: 'env_role', project_id: projectId, id, environment_id: envId, user_id: userId, role },
    },
  };
}

/** What assigning an environment role reads about its target; pass as `extra` to the caller's access so it is one BatchGet. */
export const envRoleTargetKeys = (projectId: string, envId: string, userId: string): Key[] => [
  keys.account(userId), keys.member(projectId, userId), keys.envRole(projectId, envId, userId),
];

/**
 * Upserts a role. The owner's assignment also makes the target a project member; an environment
 * administrator's does not (SPEC): the administrator cannot grant entry into the project.
 * `access` must have been loaded with `envRoleTargetKeys(projectId, env.id, userId)` in `extra`.
 */
export async function assignEnvRole(access: ProjectAccess, env: Environment, userId: string, role: EnvRole, ctx: AppContext): Promise<EnvRoleAssignment> {
  access.require('env.roles.manage', NOT_AUTHORIZED_ROLES, env.id);
  const projectId = env.project_id;
  const [accountKey, memberKey, roleKey] = envRoleTargetKeys(projectId, env.id, userId);
  const found = access.extra;
  if (!found.get(keyId(accountKey))) throw notFound('User not found');
  const existing = found.get(keyId(roleKey)) as EnvRoleAssignment | undefined;
  const assignment: EnvRoleAssignment = { id: existing?.id ?? ctx.ids.newId(), environment_id: env.id, user_id: userId, role };
  const steps = [envRoleStep(projectId, env.id, userId, role, assignment.id)];
  if (access.isOwner && !found.get(keyId(memberKey))) steps.push(...membershipSteps(projectId, userId, 'member', ctx.clock.now().toISOString()));
  await transact(steps);
  return assignment;
}

export async function listEnvRoles(projectId: string, envId: string): Promise<EnvRoleAssignment[]> {
  const items = await queryPartition<EnvRoleAssignment>(keys.projectPK(projectId), keys.envRolePrefix(envId));
  return items.map(toEnvRoleOut);
}

export async function removeEnvRole(access: ProjectAccess, env: Environment, userId: string): Promise<void> {
  access.require('env.roles.manage', NOT_AUTHORIZED_ROLES, env.id);
  await transact([
    {
      Delete: { Key: keys.envRole(env.project_id, env.id, userId), ConditionExpression: 'attribute_exists(PK)' },
      failWith: notFound('Role assignment not found'),
    },
  ]);
}
