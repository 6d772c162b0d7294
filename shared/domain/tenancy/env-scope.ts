import { keys } from '#db/keys';
import type { TransactStep } from '#db/transact';
import { invalid } from '#shared/errors';
import { loadAccess } from './access.ts';
import { environmentEntity } from './environment-entity.ts';
import type { Key } from '#db/lookup';
import { keyId } from '#db/batch-get';
import { isLive, stillLiveStep } from '#db/live';
import { queryPrefix } from '#db/query';

/** SPEC's wording (POST /services); every request that names an environment of a project uses it. */
export const ENV_NOT_IN_PROJECT = 'Environment not found or does not belong to project';

/**
 * Access for a request that names a project and one of its environments (POST /groups, GET
 * /subgroups, ...): one BatchGet with the caller's role in that environment and any `extra` items.
 * Refusals in tenancy order: 404 'Project not found', then 400 when the environment is not a live
 * one of that project. Permission checks follow, by the caller.
 */
export async function accessInEnvironment(projectId: string, userId: string, envId: string, extra: Key[] = []) {
  const envKey = keys.environment(projectId, envId);
  const access = await loadAccess(projectId, userId, { envId, extra: [envKey, ...extra] });
  const env = environmentEntity.decodeFound(access.extra.get(keyId(envKey)));
  if (!isLive(env)) throw invalid(ENV_NOT_IN_PROJECT);
  return { access, env: env! };
}

/**
 * Access for a request across a project's environments (a search without `environment_id`): the
 * caller's access with their role in every environment, and the project's live environments, read
 * together (one round trip; a second for holders of custom roles). What the caller may read in each
 * is the caller's to ask (`access.can(permission, envId)`), as in a request naming one.
 */
export async function accessAcrossEnvironments(projectId: string, userId: string) {
  const [access, envs] = await Promise.all([
    loadAccess(projectId, userId, { everyEnvRole: true }),
    queryPrefix(projectId, keys.environmentPrefix),
  ]);
  return {
    access,
    envIds: envs
      .map(environmentEntity.decode)
      .filter(isLive)
      .map((e) => e.id),
  };
}

/** Guards a write in an environment against the environment being deleted concurrently. */
export function envLiveCheck(projectId: string, envId: string): TransactStep {
  return stillLiveStep(keys.environment(projectId, envId), invalid(ENV_NOT_IN_PROJECT));
}
