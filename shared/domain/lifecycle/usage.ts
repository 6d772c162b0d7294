import { getAccount } from '#domain/identity';
import {
  environmentsOf,
  liveProjects,
  ownedProjectIds,
  serviceQuotaAddon,
  type Environment,
  type Project,
} from '#domain/tenancy';
import {
  ENVIRONMENTS_QUOTA,
  PROJECT_USERS_QUOTA,
  PROJECTS_QUOTA,
  SERVICES_QUOTA,
  API_KEYS_QUOTA,
  quotaOf,
  type Plan,
} from '#domain/billing';

/**
 * What an account uses of its plan, read from the counters the creating transactions keep (so what
 * is reported is exactly what the limits enforce; archived and deleted items have given theirs back):
 * per owned project its services, environments and project users, per environment its services,
 * and the account's API keys (both sets).
 */
export interface AccountUsage {
  projects: { project: Project; envs: Environment[] }[];
  apiKeys: number;
}

/** Two round trips: the owned project ids (with the account), then the projects and their environments together. */
export async function accountUsage(userId: string): Promise<AccountUsage> {
  const [ids, account] = await Promise.all([ownedProjectIds(userId), getAccount(userId)]);
  const [projects, envs] = await Promise.all([liveProjects(ids), Promise.all(ids.map((id) => environmentsOf(id)))]);
  const envsOf = new Map(ids.map((id, i) => [id, envs[i]]));
  return {
    projects: projects.map((project) => ({ project, envs: envsOf.get(project.id) ?? [] })),
    apiKeys: Number(account?.api_key_count ?? 0),
  };
}

/** One count against its limit (null: unlimited). */
export interface Measure {
  count: number;
  limit: number | null;
  over: number;
}
const measure = (count: number, limit: number | null): Measure => ({
  count,
  limit,
  over: limit === null ? 0 : Math.max(0, count - limit),
});

export interface ProjectOverage {
  project_id: string;
  name: string;
  services: Measure;
  environments: Measure;
  project_users: Measure;
  /** SPEC "Limits" 3: the same service limit per environment. */
  per_environment: { environment_id: string; name: string; services: Measure }[];
}

/** `usage` measured against `plan`: per project and environment, and the account's totals. */
export function overage(usage: AccountUsage, plan: Plan) {
  const projects: ProjectOverage[] = usage.projects.map(({ project, envs }) => {
    const serviceLimit = quotaOf(plan, SERVICES_QUOTA, serviceQuotaAddon(project));
    return {
      project_id: project.id,
      name: project.name,
      services: measure(project.service_count ?? 0, serviceLimit),
      environments: measure(project.env_count ?? envs.length, quotaOf(plan, ENVIRONMENTS_QUOTA)),
      project_users: measure(project.project_user_count ?? 0, quotaOf(plan, PROJECT_USERS_QUOTA)),
      per_environment: envs.map((e) => ({
        environment_id: e.id,
        name: e.name,
        services: measure(e.service_count ?? 0, serviceLimit),
      })),
    };
  });
  const sum = (pick: (p: ProjectOverage) => number) => projects.reduce((n, p) => n + pick(p), 0);
  const apiKeys = measure(usage.apiKeys, quotaOf(plan, API_KEYS_QUOTA));
  const projectCount = measure(usage.projects.length, quotaOf(plan, PROJECTS_QUOTA));
  // An environment's services are within its project's count, and the limit is the same number:
  // a project within its limit has every environment within it, so the project figures are the over.
  const over = {
    services: sum((p) => p.services.over),
    project_users: sum((p) => p.project_users.over),
    api_keys: apiKeys.over,
  };
  return {
    limits: {
      services: plan.max_services,
      project_users: plan.max_project_users,
      api_keys: plan.max_api_keys_per_user,
    },
    usage: {
      services: sum((p) => p.services.count),
      project_users: sum((p) => p.project_users.count),
      api_keys: apiKeys.count,
    },
    over,
    /** Beyond SPEC's three: environments per project and owned projects (nothing archives a project; creating more is refused). */
    environments_over: sum((p) => p.environments.over),
    projects: projectCount,
    per_project: projects,
  };
}
export type Overage = ReturnType<typeof overage>;

export const anyOver = (o: Overage) =>
  o.over.services + o.over.project_users + o.over.api_keys + o.environments_over > 0;
