import { keys } from '#db/keys';
import { invalid, forbidden } from '#shared/errors';
import { loadAccess, type ProjectAccess } from './access';
import { ENV_NOT_IN_PROJECT } from './env-scope';
import { listEnvironments, type Environment } from './environments';
import { planOfProject } from './projects';
import { queryPrefix } from '#db/query';
import { keyId } from '#db/batch-get';
import { isLive } from '#db/live';
import { RATE_CARD, serverUsage, sumUsage, type ServerSpec } from '#domain/billing';

interface FloorSpec extends ServerSpec {
  id: string;
  environment_id?: string;
  hostname?: string | null;
  deleted_at?: string | null;
  archived_at?: string | null;
}

export const NO_COST_ESTIMATE = 'Your plan does not include cost estimates (feature: cost_estimate). Please upgrade.';

/**
 * The monthly estimate for a project's live servers, or one environment's. Refusals after tenancy:
 * 403 when the plan's `cost_estimate` feature is 'none', then 400 for an environment not in the
 * project. Plans with 'advanced' estimates also get one line per server.
 * `access` must have been loaded with `keys.environment(projectId, envId)` in `extra` when `envId` is given.
 */
export async function costEstimate(access: ProjectAccess, envId?: string) {
  const projectId = access.project.id;
  // The plan and (for the whole project) its environments are independent reads: one round trip.
  const [plan, projectEnvs] = await Promise.all([planOfProject(access.project), envId ? undefined : listEnvironments(projectId)]);
  const level = plan.features.cost_estimate;
  if (level === 'none') throw forbidden(NO_COST_ESTIMATE);
  let envs: Environment[];
  if (envId) {
    const env = access.extra.get(keyId(keys.environment(projectId, envId))) as Environment | undefined;
    if (!isLive(env)) throw invalid(ENV_NOT_IN_PROJECT);
    envs = [env!];
  } else {
    envs = projectEnvs!;
  }
  access.require('floors.view', 'Not authorized to view costs for this project', envId);
  const floorsPerEnv = await Promise.all(envs.map((e) => queryPrefix<FloorSpec>(projectId, keys.floorPrefix(e.id))));
  const lines = envs.flatMap((e, i) =>
    floorsPerEnv[i].filter((f) => isLive(f)).map((f) => ({ floor: f, environment_id: e.id, usage: serverUsage(f) })),
  );
  const environments = envs.map((e) => ({ environment_id: e.id, name: e.name, ...sumUsage(lines.filter((l) => l.environment_id === e.id).map((l) => l.usage)) }));
  return {
    project_id: projectId,
    environment_id: envId ?? null,
    currency: 'USD',
    period: 'month',
    level,
    cost_calc_enabled: access.project.cost_calc_enabled,
    rate_card: RATE_CARD,
    totals: sumUsage(lines.map((l) => l.usage)),
    environments,
    ...(level === 'advanced' && {
      servers: lines.map(({ floor, environment_id, usage }) => ({
        id: floor.id, environment_id, hostname: floor.hostname ?? null, instances: usage.instances, cpu: floor.cpu ?? 0, memory_mb: floor.memory_mb ?? 0,
        storage_gb: floor.storage_gb ?? 0, monthly_cents: usage.monthly_cents,
      })),
    }),
  };
}

/** GET /projects/{id}/costs/estimate: the caller's access (with the environment, when one is named) read in one round trip, then the estimate. */
export async function projectCostEstimate(projectId: string, userId: string, envId?: string) {
  const access = await loadAccess(projectId, userId, { envId, extra: envId ? [keys.environment(projectId, envId)] : [] });
  return costEstimate(access, envId);
}
