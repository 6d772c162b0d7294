import { keys } from '#db/keys';
import { filterParams, LIVE_FILTER, type Lifecycle } from '#db/live';
import { queryPrefix } from '#db/query';
import { actorAccount, type AppContext } from '#shared/context';
import { byText } from '#shared/text';
import { accessInEnvironment } from '#domain/tenancy';

import { SERVICE_FORBIDDEN } from '../service-refusals';
import { byConnectionOrder } from './connections';
import { byLinkOrder } from './links';
import type { Connection, Direction } from './connection-entity';
import type { EntityType } from './ends';

/**
 * GET /topology: the environment as the dashboard's topology draws it, in one compact
 * answer instead of the lists of services, servers, networks, connections and links (and one read
 * of network attachments per server and service). Columnar: `nodes` and `edges` are objects of
 * arrays of one length, an edge's ends are indexes into the nodes.
 */

export const NODE_KINDS = ['service', 'floor', 'network'] as const;
export type NodeKind = (typeof NODE_KINDS)[number];
export const EDGE_KINDS = ['connection', 'link', 'hosting', 'attachment'] as const;
export type EdgeKind = (typeof EDGE_KINDS)[number];

export interface EnvironmentTopology {
  project_id: string;
  environment_id: string;
  /** Services (by name), then servers (by hostname), then networks (by name). */
  nodes: {
    kind: NodeKind[];
    id: string[];
    /** A service's or network's name; a server's hostname (null when it has none). */
    name: (string | null)[];
    /** A service's group name. */
    group: (string | null)[];
    /** A server's type (vm, container, …). */
    type: (string | null)[];
    /** A network's CIDR. */
    cidr: (string | null)[];
  };
  /**
   * Connections (source = end a, target = end b; in creation order), links (source depends on
   * target), hosting (service → its server) and network attachments (service or server → network).
   */
  edges: {
    kind: EdgeKind[];
    source: number[];
    target: number[];
    /** A connection's direction (as stored: the arrow is at the target for a_to_b). */
    direction: (Direction | null)[];
    /** A connection's name. */
    name: (string | null)[];
  };
}

type ServiceRow = Lifecycle & {
  id: string;
  name: string;
  group_id?: string | null;
  service_floor_id?: string | null;
  network_ids?: string[];
};
type FloorRow = Lifecycle & {
  id: string;
  hostname?: string | null;
  floor_type?: string | null;
  network_ids?: string[];
};
type NetworkRow = Lifecycle & { id: string; name: string; cidr?: string | null };
type GroupRow = Lifecycle & { id: string; name: string };
type ConnectionRow = Lifecycle &
  Pick<Connection, 'id' | 'a_type' | 'a_id' | 'b_type' | 'b_id' | 'direction' | 'name' | 'created_at' | 'position'>;
type LinkRow = Lifecycle & { id: string; from_service_id: string; to_service_id: string; created_at: string };

/**
 * The environment's items the drawing needs: one Query per kind's key prefix, all in parallel
 * (each follows its own pages), projected to the fields drawn, live items only (the live rule as the
 * Queries' filter: deleted and archived items are not sent back). No Scan, no per-item read.
 */
async function readItems(
  projectId: string,
  envId: string,
  what: { floors: boolean; networks: boolean; connections: boolean },
) {
  const none = Promise.resolve([]);
  const live = filterParams(LIVE_FILTER);
  const [services, groups, floors, networks, connections, links] = await Promise.all([
    queryPrefix<ServiceRow>(projectId, keys.servicePrefix(envId), {
      projection: ['id', 'name', 'group_id', 'service_floor_id', 'network_ids'],
      ...live,
    }),
    queryPrefix<GroupRow>(projectId, keys.groupPrefix(envId), { projection: ['id', 'name'], ...live }),
    what.floors
      ? queryPrefix<FloorRow>(projectId, keys.floorPrefix(envId), {
          projection: ['id', 'hostname', 'floor_type', 'network_ids'],
          ...live,
        })
      : none,
    what.networks
      ? queryPrefix<NetworkRow>(projectId, keys.networkPrefix(envId), { projection: ['id', 'name', 'cidr'], ...live })
      : none,
    what.connections
      ? queryPrefix<ConnectionRow>(projectId, keys.connectionPrefix(envId), {
          projection: ['id', 'a_type', 'a_id', 'b_type', 'b_id', 'direction', 'name', 'created_at', 'position'],
          ...live,
        })
      : none,
    what.connections
      ? queryPrefix<LinkRow>(projectId, keys.linkPrefix(envId), {
          projection: ['id', 'from_service_id', 'to_service_id', 'created_at'],
          ...live,
        })
      : none,
  ]);
  return {
    services: services.sort(byText((s) => s.name)),
    groups: groups,
    floors: (floors as FloorRow[]).sort(byText((f) => f.hostname)),
    networks: (networks as NetworkRow[]).sort(byText((n) => n.name)),
    connections: (connections as ConnectionRow[]).sort(byConnectionOrder),
    links: (links as LinkRow[]).sort(byLinkOrder),
  };
}

/** The items read, as nodes and edges; edges to an item that is not drawn (deleted, or not viewable) are left out. */
export function topologyOf(
  projectId: string,
  envId: string,
  items: Awaited<ReturnType<typeof readItems>>,
): EnvironmentTopology {
  const nodes: EnvironmentTopology['nodes'] = { kind: [], id: [], name: [], group: [], type: [], cidr: [] };
  const edges: EnvironmentTopology['edges'] = { kind: [], source: [], target: [], direction: [], name: [] };
  const index = new Map<string, number>();
  const node = (
    kind: NodeKind,
    id: string,
    fields: { name: string | null; group?: string | null; type?: string | null; cidr?: string | null },
  ) => {
    index.set(`${kind}#${id}`, nodes.id.length);
    nodes.kind.push(kind);
    nodes.id.push(id);
    nodes.name.push(fields.name);
    nodes.group.push(fields.group ?? null);
    nodes.type.push(fields.type ?? null);
    nodes.cidr.push(fields.cidr ?? null);
  };
  const edge = (
    kind: EdgeKind,
    from: string,
    to: string,
    connection?: { direction: Direction; name: string | null },
  ) => {
    const source = index.get(from);
    const target = index.get(to);
    if (source === undefined || target === undefined) return;
    edges.kind.push(kind);
    edges.source.push(source);
    edges.target.push(target);
    edges.direction.push(connection?.direction ?? null);
    edges.name.push(connection?.name ?? null);
  };
  const groupName = new Map(items.groups.map((g) => [g.id, g.name]));
  for (const s of items.services)
    node('service', s.id, { name: s.name, group: (s.group_id && groupName.get(s.group_id)) || null });
  for (const f of items.floors) node('floor', f.id, { name: f.hostname ?? null, type: f.floor_type ?? null });
  for (const n of items.networks) node('network', n.id, { name: n.name, cidr: n.cidr ?? null });

  const end = (type: EntityType, id: string) => `${type}#${id}`;
  for (const c of items.connections)
    edge('connection', end(c.a_type, c.a_id), end(c.b_type, c.b_id), {
      direction: c.direction ?? 'none',
      name: c.name ?? null,
    });
  for (const l of items.links) edge('link', end('service', l.from_service_id), end('service', l.to_service_id));
  for (const s of items.services)
    if (s.service_floor_id) edge('hosting', end('service', s.id), end('floor', s.service_floor_id));
  for (const holder of [
    ...items.services.map((s) => ['service', s] as const),
    ...items.floors.map((f) => ['floor', f] as const),
  ]) {
    const [kind, { id, network_ids }] = holder;
    for (const network of new Set(network_ids ?? [])) edge('attachment', end(kind, id), `network#${network}`);
  }
  return { project_id: projectId, environment_id: envId, nodes, edges };
}

/**
 * GET /topology?project_id=&environment_id=: refused as GET /services refuses (404 'Project not
 * found' for an unknown project or a non-member, 400 for an environment not a live one of the
 * project, 403 without services.view); servers, networks, and connections with links are drawn
 * when the caller may view them (every member may, today). The access is read first (one
 * BatchGet), then the environment in one parallel round of Queries.
 */
export async function environmentTopology(
  ctx: AppContext,
  input: { project_id: string; environment_id: string },
): Promise<EnvironmentTopology> {
  const { project_id: projectId, environment_id: envId } = input;
  const { access } = await accessInEnvironment(projectId, actorAccount(ctx).id, envId);
  access.require('services.view', SERVICE_FORBIDDEN.view, envId);
  const can = (p: 'floors.view' | 'networks.view' | 'connections.view') => access.can(p, envId);
  const items = await readItems(projectId, envId, {
    floors: can('floors.view'),
    networks: can('networks.view'),
    connections: can('connections.view'),
  });
  return topologyOf(projectId, envId, items);
}
