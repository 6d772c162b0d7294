import { keys } from '#db/keys';
import { invalid, forbidden } from '#shared/errors';
import { loadAccess, type ProjectAccess } from './access';
import { ENV_NOT_IN_PROJECT } from './env-scope';
import { listEnvironments, type Environment } from './environments';
import { planOfProject } from './projects';
import { queryPrefix } from '#db/query';
import { keyId } from '#db/batch-get';
import { isLive } from '#db/live';

/**
 * The documented rate card (docs/decisions.md): list prices in USD cents per month, applied to the
 * servers' flat specification (cpu, memory_mb, storage_gb) times their instances.
 */
export const RATE_CARD = {
  cpu_cents_per_vcpu_month: 1500,
  memory_cents_per_gb_month: 400,
  storage_cents_per_gb_month: 10,
} as const;

interface FloorSpec {
  id: string;
  environment_id?: string;
  hostname?: string | null;
  cpu?: number | null;
  memory_mb?: number | null;
  storage_gb?: number | null;
  instances?: number | null;
  deleted_at?: string | null;
  archived_at?: string | null;
}

interface Usage {
  servers: number;
  instances: number;
  cpu: number;
  memory_mb: number;
  storage_gb: number;
  monthly_cents: number;
}

/** Monthly cost of one server: its unit price times its instances (a missing instance count is 1), rounded to whole cents. */
export function serverUsage(f: FloorSpec): Usage {
  const instances = f.instances ?? 1;
  const cpu = (f.cpu ?? 0) * instances;
  const memory_mb = (f.memory_mb ?? 0) * instances;
  const storage_gb = (f.storage_gb ?? 0) * instances;
  const monthly_cents = Math.round(
    cpu * RATE_CARD.cpu_cents_per_vcpu_month + (memory_mb / 1024) * RATE_CARD.memory_cents_per_gb_month + storage_gb * RATE_CARD.storage_cents_per_gb_month,
  );
  return { servers: 1, instances, cpu, memory_mb, storage_gb, monthly_cents };
}

const sum = (rows: Usage[]): Usage =>
  rows.reduce((a, r) => ({
    servers: a.servers + r.servers, instances: a.instances + r.instances, cpu: a.cpu + r.cpu, memory_mb: a.memory_mb + r.memory_mb,
    storage_gb: a.storage_gb + r.storage_gb, monthly_cents: a.monthly_cents + r.monthly_cents,
  }), { servers: 0, instances: 0, cpu: 0, memory_mb: 0, storage_gb: 0, monthly_cents: 0 });

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
  const environments = envs.map((e) => ({ environment_id: e.id, name: e.name, ...sum(lines.filter((l) => l.environment_id === e.id).map((l) => l.usage)) }));
  return {
    project_id: projectId,
    environment_id: envId ?? null,
    currency: 'USD',
    period: 'month',
    level,
    cost_calc_enabled: access.project.cost_calc_enabled,
    rate_card: RATE_CARD,
    totals: sum(lines.map((l) => l.usage)),
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
