import { keys } from '#db/keys';
import { filterParams, isLive, LIVE_FILTER, type Lifecycle } from '#db/live';
import { queryPrefix } from '#db/query';
import type { Connection } from '../connection-entity.ts';

/**
 * The rows of an environment's topology: of each item the drawing needs, the fields it draws (live
 * items only). Read whole by one parallel round of Queries (a rebuild of the snapshot), or item by item
 * from what the table stream says changed (its upkeep).
 */

export type ServiceRow = {
  id: string;
  name: string;
  group_id?: string | null;
  service_floor_id?: string | null;
  network_ids?: string[];
};
export type FloorRow = { id: string; hostname?: string | null; floor_type?: string | null; network_ids?: string[] };
export type NetworkRow = { id: string; name: string; cidr?: string | null };
export type GroupRow = { id: string; name: string };
export type ConnectionRow = Pick<
  Connection,
  'id' | 'a_type' | 'a_id' | 'b_type' | 'b_id' | 'direction' | 'name' | 'created_at' | 'position'
>;
export type LinkRow = { id: string; from_service_id: string; to_service_id: string; created_at: string };

export interface Rows {
  services: ServiceRow[];
  groups: GroupRow[];
  floors: FloorRow[];
  networks: NetworkRow[];
  connections: ConnectionRow[];
  links: LinkRow[];
}
export type RowKind = keyof Rows;
export const ROW_KINDS: RowKind[] = ['services', 'groups', 'floors', 'networks', 'connections', 'links'];

/** Each kind's key prefix (before `<envId>#<id>`) and the fields of its row. */
const KINDS: Record<RowKind, { prefix: (envId: string) => string; fields: string[] }> = {
  services: { prefix: keys.servicePrefix, fields: ['id', 'name', 'group_id', 'service_floor_id', 'network_ids'] },
  groups: { prefix: keys.groupPrefix, fields: ['id', 'name'] },
  floors: { prefix: keys.floorPrefix, fields: ['id', 'hostname', 'floor_type', 'network_ids'] },
  networks: { prefix: keys.networkPrefix, fields: ['id', 'name', 'cidr'] },
  connections: {
    prefix: keys.connectionPrefix,
    fields: ['id', 'a_type', 'a_id', 'b_type', 'b_id', 'direction', 'name', 'created_at', 'position'],
  },
  links: { prefix: keys.linkPrefix, fields: ['id', 'from_service_id', 'to_service_id', 'created_at'] },
};
const ITEM_KEY: Record<RowKind, (projectId: string, envId: string, id: string) => { PK: string; SK: string }> = {
  services: keys.service,
  groups: keys.group,
  floors: keys.floor,
  networks: keys.network,
  connections: keys.connection,
  links: keys.link,
};

/** A changed item of the topology, named by its key. */
export interface TopologyChange {
  projectId: string;
  envId: string;
  kind: RowKind;
  id: string;
}

const PROJECT_PK = keys.projectPK('');
/** Each kind's sort-key head (`SERVICE#`, …), before the environment's id. */
const SK_KINDS = ROW_KINDS.map((kind) => [`${KINDS[kind].prefix('\u0000').split('\u0000')[0]}`, kind] as const);
/**
 * The topology change an item's key names, if it is one of the drawn kinds (`PROJECT#<p>`,
 * `<KIND>#<env>#<id>`); undefined for every other item (listings, sentinels, audit entries, ...).
 */
export function changeOfKey(pk: unknown, sk: unknown): TopologyChange | undefined {
  if (typeof pk !== 'string' || typeof sk !== 'string' || !pk.startsWith(PROJECT_PK)) return undefined;
  const found = SK_KINDS.find(([prefix]) => sk.startsWith(prefix));
  if (!found) return undefined;
  const [envId, id, ...rest] = sk.slice(found[0].length).split('#');
  if (!envId || !id || rest.length) return undefined;
  return { projectId: pk.slice(PROJECT_PK.length), envId, kind: found[1], id };
}

export const itemKeyOf = (c: TopologyChange) => ITEM_KEY[c.kind](c.projectId, c.envId, c.id);

/** The row of a stored item (its drawn fields), or undefined when it is not live. */
export function rowOf(kind: RowKind, item: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!item || !isLive(item)) return undefined;
  const row: Record<string, unknown> = {};
  for (const field of KINDS[kind].fields) if (item[field] !== undefined) row[field] = item[field];
  return row;
}

/**
 * The environment's rows: one Query per kind's key prefix, all in parallel (each follows its own pages),
 * projected to the fields drawn, live items only (the live rule as the Queries' filter: deleted and
 * archived items are not sent back). No Scan, no per-item read.
 */
export async function readRows(projectId: string, envId: string): Promise<Rows> {
  const live = filterParams(LIVE_FILTER);
  const read = <T>(kind: RowKind) =>
    queryPrefix<T & Lifecycle>(projectId, KINDS[kind].prefix(envId), { projection: KINDS[kind].fields, ...live });
  const [services, groups, floors, networks, connections, links] = await Promise.all([
    read<ServiceRow>('services'),
    read<GroupRow>('groups'),
    read<FloorRow>('floors'),
    read<NetworkRow>('networks'),
    read<ConnectionRow>('connections'),
    read<LinkRow>('links'),
  ]);
  return { services, groups, floors, networks, connections, links };
}
