import { isLive, softDeleteStep, visible } from '#db/live';
import { keys } from '#db/keys';
import { transact } from '#db/transact';
import { notFound } from '#shared/errors';
import type { AppContext } from '#shared/context';
import { loadAccess, type ProjectAccess } from './access';
import { locate, lookupStep, type Key } from '#db/lookup';
import { planOfProject } from './projects';
import { claimNameStep, releaseNameStep, renameSteps, type NameScope } from '#db/unique-names';
import { queryPartition } from '#db/query';
import { keyId } from '#db/batch-get';
import { counterStep } from '#db/steps';
import { takeQuotaStep } from '#domain/billing';

export interface Environment {
  id: string;
  name: string;
  project_id: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  archived_at?: string | null;
  /** Services in this environment (the per-environment service quota). */
  service_count: number;
}

export const toEnvironmentOut = (e: Environment) => ({ id: e.id, name: e.name, project_id: e.project_id, updated_at: e.updated_at, deleted_at: e.deleted_at });

export const ENVIRONMENT_NOT_FOUND = 'Environment not found';
const nameScope = (projectId: string): NameScope => ({ projectId, kind: 'ENV', scopeId: projectId, takenDetail: 'Environment with this name already exists in this project' });

/**
 * The caller's access to the environment with this id, with the environment itself: one lookup,
 * then one BatchGet (which also reads the `extra` keys, given the project id). Unknown, deleted
 * and foreign environments give the same 404.
 */
export async function accessToEnvironment(envId: string, userId: string, detail = ENVIRONMENT_NOT_FOUND, extra: (projectId: string) => Key[] = () => []) {
  const { projectId, key } = await locate(envId, 'environment', notFound(detail));
  const access = await loadAccess(projectId, userId, { envId, extra: [key, ...extra(projectId)], notFoundError: notFound(detail) });
  const env = access.extra.get(keyId(key)) as Environment | undefined;
  if (!isLive(env)) throw notFound(detail);
  return { access, env: env! };
}

export async function listEnvironments(projectId: string, updatedSince?: string): Promise<Environment[]> {
  const items = await queryPartition<Environment>(keys.projectPK(projectId), keys.environmentPrefix);
  return visible(items, updatedSince).sort((a, b) => a.created_at.localeCompare(b.created_at));
}

export async function createEnvironment(access: ProjectAccess, name: string, ctx: AppContext): Promise<Environment> {
  access.require('env.manage', 'Not authorized to create environments in this project');
  const plan = await planOfProject(access.project);
  const now = ctx.clock.now().toISOString();
  const env: Environment = { id: ctx.ids.newId(), name: name.trim(), project_id: access.project.id, created_at: now, updated_at: now, deleted_at: null, service_count: 0 };
  const key = keys.environment(env.project_id, env.id);
  await transact([
    takeQuotaStep(keys.project(env.project_id), 'env_count', plan, 'environments'),
    claimNameStep(nameScope(env.project_id), env.name, env.id),
    { Put: { Item: { ...key, type: 'environment', ...env }, ConditionExpression: 'attribute_not_exists(PK)' } },
    lookupStep(env.id, env.project_id, key, 'environment'),
  ]);
  return env;
}

export async function renameEnvironment(access: ProjectAccess, env: Environment, name: string, ctx: AppContext): Promise<Environment> {
  access.require('env.manage', 'Not authorized to manage environments in this project');
  const updated: Environment = { ...env, name: name.trim(), updated_at: ctx.clock.now().toISOString() };
  await transact([
    ...renameSteps(nameScope(env.project_id), env.name, updated.name, env.id),
    {
      Update: {
        Key: keys.environment(env.project_id, env.id),
        UpdateExpression: 'SET #n = :n, updated_at = :u',
        ConditionExpression: 'attribute_exists(PK) AND deleted_at = :null',
        ExpressionAttributeNames: { '#n': 'name' },
        ExpressionAttributeValues: { ':n': updated.name, ':u': updated.updated_at, ':null': null },
      },
      failWith: notFound(ENVIRONMENT_NOT_FOUND),
    },
  ]);
  return updated;
}

/**
 * Soft delete: the environment and what it holds leave every list; its name is free again and the
 * plan slots it used (the environment and its services) are released.
 */
export async function deleteEnvironment(access: ProjectAccess, env: Environment, ctx: AppContext): Promise<void> {
  access.require('env.manage', 'Not authorized to manage environments in this project');
  const now = ctx.clock.now().toISOString();
  await transact([
    softDeleteStep(keys.environment(env.project_id, env.id), now, notFound(ENVIRONMENT_NOT_FOUND)),
    releaseNameStep(nameScope(env.project_id), env.name),
    counterStep(keys.project(env.project_id), { env_count: -1, service_count: -(env.service_count ?? 0) }),
  ]);
}
