import { keys } from '#db/keys';
import { invalid, forbidden } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { RATE_CARD, serverUsage, sumUsage, type ServerSpec } from '#domain/billing';
import { loadAccess } from './access.ts';
import { ENV_NOT_IN_PROJECT } from './env-scope.ts';
import { environmentsOf } from './environments.ts';
import { environmentEntity, type Environment } from './environment-entity.ts';
import { planOfProject } from './projects.ts';
import { queryPrefix } from '#db/query';
import { keyId } from '#db/batch-get';
import { isLive, type Lifecycle } from '#db/live';

interface FloorSpec extends ServerSpec, Lifecycle {
  id: string;
  environment_id?: string;
  hostname?: string | null;
}

export const NO_COST_ESTIMATE = 'Your plan does not include cost estimates (feature: cost_estimate). Please upgrade.';

/**
 * GET /projects/{id}/costs/estimate: the monthly estimate for a project's live servers, or one
 * environment's (pricing: billing's rate card). The caller's access (with the environment, when one
 * is named) is read in one round trip. Refusals after tenancy: 403 when the plan's `cost_estimate`
 * feature is 'none', then 400 for an environment not in the project, then 403 without floors.view.
 * Plans with 'advanced' estimates also get one line per server.
 */
export async function costEstimate(ctx: AppContext, input: { project_id: string; environment_id?: string }) {
  const { project_id: projectId, environment_id: envId } = input;
  const envKey = envId ? keys.environment(projectId, envId) : undefined;
  const access = await loadAccess(projectId, actorAccount(ctx).id, { envId, extra: envKey ? [envKey] : [] });
  // The plan and (for the whole project) its environments are independent reads: one round trip.
  const [plan, projectEnvs] = await Promise.all([
    planOfProject(access.project),
    envId ? undefined : environmentsOf(projectId),
  ]);
  const level = plan.features.cost_estimate;
  if (level === 'none') throw forbidden(NO_COST_ESTIMATE);
  let envs: Environment[];
  if (envKey) {
    const env = environmentEntity.decodeFound(access.extra.get(keyId(envKey)));
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
  const environments = envs.map((e) => ({
    environment_id: e.id,
    name: e.name,
    ...sumUsage(lines.filter((l) => l.environment_id === e.id).map((l) => l.usage)),
  }));
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
        id: floor.id,
        environment_id,
        hostname: floor.hostname ?? null,
        instances: usage.instances,
        cpu: floor.cpu ?? 0,
        memory_mb: floor.memory_mb ?? 0,
        storage_gb: floor.storage_gb ?? 0,
        monthly_cents: usage.monthly_cents,
      })),
    }),
  };
}
