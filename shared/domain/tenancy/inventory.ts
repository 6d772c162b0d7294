import { isLive, LIFECYCLE_FIELDS, type Lifecycle } from '#db/live';
import { queryAll } from '#db/query';
import { keys } from '#db/keys';

/** The item kinds counted in statistics, by sort-key prefix `<PREFIX>#<environmentId>#...`. */
const COUNTED = { SERVICE: 'services', FLOOR: 'servers', GROUP: 'groups', NETWORK: 'networks' } as const;
export type Counts = { [K in (typeof COUNTED)[keyof typeof COUNTED]]: number };

const empty = (): Counts => ({ services: 0, servers: 0, groups: 0, networks: 0 });

/**
 * Live counts per environment of one project, from one Query over the project's partition that
 * fetches only sort keys and deletion marks (exact, no counters to drift). Items of deleted
 * environments are not counted.
 */
export async function projectInventory(projectId: string): Promise<Map<string, Counts & { name: string }>> {
  const perEnv = new Map<string, Counts & { name: string }>();
  const items = await queryAll<Lifecycle & { SK: string; name?: string }>({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': keys.projectPK(projectId) },
    ExpressionAttributeNames: { '#n': 'name' },
    ProjectionExpression: ['SK', ...LIFECYCLE_FIELDS, '#n'].join(', '),
  });
  for (const item of items) {
    if (item.SK.startsWith(keys.environmentPrefix) && isLive(item)) {
      perEnv.set(item.SK.slice(keys.environmentPrefix.length), { name: item.name ?? '', ...empty() });
    }
  }
  for (const item of items) {
    const [prefix, envId] = item.SK.split('#');
    const kind = COUNTED[prefix as keyof typeof COUNTED];
    const env = perEnv.get(envId);
    if (kind && env && isLive(item)) env[kind]++;
  }
  return perEnv;
}

export function totals(perEnv: Map<string, Counts>): Counts & { environments: number } {
  const sum = { environments: perEnv.size, ...empty() };
  for (const c of perEnv.values()) for (const k of Object.keys(c) as (keyof Counts)[]) if (k in sum) sum[k] += c[k];
  return sum;
}
