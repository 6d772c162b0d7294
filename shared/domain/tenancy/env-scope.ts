import { keys } from '#db/keys';
import type { TransactStep } from '#db/transact';
import { invalid, type DomainError } from '#shared/errors';
import { loadAccess } from './access';
import { type Environment } from './environments';
import { readLookup, type Key } from '#db/lookup';
import { keyId } from '#db/batch-get';
import { isLive, stillLiveStep } from '#db/live';

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
  const env = access.extra.get(keyId(envKey)) as Environment | undefined;
  if (!isLive(env)) throw invalid(ENV_NOT_IN_PROJECT);
  return { access, env: env! };
}

/** Environment-scoped items have sort keys `<KIND>#<environmentId>#<id>` (shared/db/keys.ts). */
export const envIdOfKey = (key: Key) => key.SK.split('#')[1];

/** Guards a write in an environment against the environment being deleted concurrently. */
export function envLiveCheck(projectId: string, envId: string): TransactStep {
  return stillLiveStep(keys.environment(projectId, envId), invalid(ENV_NOT_IN_PROJECT));
}

/** Attributes the lookup item carries besides where the item lives: hints read in round trip 1. */
export type LookupRefs = Record<string, string | null>;

export interface Located {
  projectId: string;
  envId: string;
  key: Key;
  refs: LookupRefs;
}

/**
 * Where an environment-scoped item lives (one strongly consistent GetItem): its project, its
 * environment (recorded on catalog lookups, else read off the sort key) and any hints. An unknown
 * id, or one of another kind, is `notFoundError`.
 */
export async function locateInEnvironment(id: string, kind: string, notFoundError: DomainError): Promise<Located> {
  const item = await readLookup(id, kind, notFoundError);
  const { PK: _pk, SK: _sk, project_id, item_pk, item_sk, kind: _k, environment_id, ...refs } = item;
  const key = { PK: item_pk, SK: item_sk };
  return { projectId: project_id, envId: (environment_id as string | undefined) ?? envIdOfKey(key), key, refs: refs as LookupRefs };
}

/**
 * The caller's access to one environment-scoped item (service, floor, network, group, connection, ...): locate (round trip 1), then the project, membership,
 * role in the item's environment, the item, its environment and `extra` keys in one BatchGet
 * (round trip 2). Unknown, foreign, deleted items and items of deleted environments all give
 * `notFoundError`, byte for byte.
 */
export async function accessToEnvItem<T>(
  id: string,
  kind: string,
  userId: string,
  notFoundError: DomainError,
  extra: (located: Located) => Key[] = () => [],
) {
  const located = await locateInEnvironment(id, kind, notFoundError);
  const envKey = keys.environment(located.projectId, located.envId);
  const access = await loadAccess(located.projectId, userId, {
    envId: located.envId,
    extra: [located.key, envKey, ...extra(located)],
    notFoundError,
  });
  const item = access.extra.get(keyId(located.key)) as (T & { deleted_at: string | null }) | undefined;
  const env = access.extra.get(keyId(envKey)) as Environment | undefined;
  if (!isLive(item) || !isLive(env)) throw notFoundError;
  return { access, item: item!, env: env!, located };
}
