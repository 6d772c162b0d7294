import { keys } from '#db/keys';
import { queryPartition } from '#db/query';
import { isLive, type Lifecycle } from '#db/live';
import type { AccountUsage, Overage } from './usage.ts';
import type { Selection } from './selection.ts';

type Row = Lifecycle & { id: string; name: string; created_at: string };
export type Candidate = {
  id: string;
  name: string;
  project_id: string | null;
  environment_id: string | null;
  created_at: string;
  suggested: boolean;
};

const newestFirst = <T extends { created_at: string; id: string }>(items: T[]) =>
  [...items].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));

/** The newest `count` of `items` are suggested. */
function suggest<T extends Row>(
  items: T[],
  count: number,
  where: (i: T) => { project_id: string | null; environment_id: string | null },
): Candidate[] {
  return newestFirst(items).map((i, n) => ({
    id: i.id,
    name: i.name,
    ...where(i),
    created_at: i.created_at,
    suggested: n < count,
  }));
}

/**
 * What could be archived to get under the limits measured in `o`, grouped by kind, with a suggested
 * selection: the newest first, just enough to get under. Environments first (archiving one gives
 * back its services too, so the services still to choose are counted after them), then services,
 * project users and API keys. Only scopes that are over are listed.
 */
export async function overageCandidatesOf(userId: string, usage: AccountUsage, o: Overage) {
  const environments: Candidate[] = [];
  const services: Candidate[] = [];
  const projectUsers: Candidate[] = [];
  await Promise.all(
    o.per_project.map(async (p) => {
      const envs = usage.projects.find((u) => u.project.id === p.project_id)?.envs ?? [];
      const envChoice = suggest(envs as unknown as Row[], p.environments.over, () => ({
        project_id: p.project_id,
        environment_id: null,
      }));
      if (p.environments.over > 0) environments.push(...envChoice);
      const leaving = new Set(envChoice.filter((e) => e.suggested).map((e) => e.id));
      const servicesLeft =
        p.services.over - envs.filter((e) => leaving.has(e.id)).reduce((n, e) => n + (e.service_count ?? 0), 0);
      if (servicesLeft > 0) {
        const live = (
          await queryPartition<Row & { environment_id: string }>(keys.projectPK(p.project_id), 'SERVICE#')
        ).filter((s) => isLive(s) && !leaving.has(s.environment_id));
        services.push(
          ...suggest(live, servicesLeft, (s) => ({ project_id: p.project_id, environment_id: s.environment_id })),
        );
      }
      if (p.project_users.over > 0) {
        const live = (await queryPartition<Row>(keys.projectPK(p.project_id), keys.projectUserPrefix)).filter(isLive);
        projectUsers.push(
          ...suggest(live, p.project_users.over, () => ({ project_id: p.project_id, environment_id: null })),
        );
      }
    }),
  );
  const apiKeys =
    o.over.api_keys > 0
      ? suggest(
          (await queryPartition<Row>(keys.account(userId).PK, 'APIKEY#')).filter(isLive),
          o.over.api_keys,
          () => ({ project_id: null, environment_id: null }),
        )
      : [];
  const chosen = (list: Candidate[]) =>
    newestFirst(list)
      .filter((c) => c.suggested)
      .map((c) => c.id);
  const suggested: Selection = {
    environments: chosen(environments),
    services: chosen(services),
    project_users: chosen(projectUsers),
    api_keys: chosen(apiKeys),
  };
  return {
    environments: newestFirst(environments),
    services: newestFirst(services),
    project_users: newestFirst(projectUsers),
    api_keys: newestFirst(apiKeys),
    suggested,
  };
}
