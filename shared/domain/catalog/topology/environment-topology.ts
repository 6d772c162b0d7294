import { keyId } from '#db/batch-get';
import { getItem } from '#db/items';
import { keys } from '#db/keys';
import { settleTaps } from '#shared/clients/write-tap';
import { actorAccount, type AppContext } from '#shared/context';
import { byText } from '#shared/text';
import { accessInEnvironment } from '#domain/tenancy';

import { SERVICE_FORBIDDEN } from '../service-refusals.ts';
import { byConnectionOrder } from './connections/index.ts';
import { byLinkOrder } from './links.ts';
import type { Direction } from './connection-entity.ts';
import type { EntityType } from './ends.ts';
import type { Rows } from './snapshot/rows.ts';
import { FORMAT, headOf, readAllRows } from './snapshot/store.ts';
import { rebuildTopology } from './snapshot/upkeep.ts';

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

/** The items read, as nodes and edges; edges to an item that is not drawn (deleted, or not viewable) are left out. */
export function topologyOf(projectId: string, envId: string, rows: Rows): EnvironmentTopology {
  const items = {
    services: [...rows.services].sort(byText((s) => s.name)),
    groups: rows.groups,
    floors: [...rows.floors].sort(byText((f) => f.hostname)),
    networks: [...rows.networks].sort(byText((n) => n.name)),
    connections: [...rows.connections].sort(byConnectionOrder),
    links: [...rows.links].sort(byLinkOrder),
  };
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

/** What the caller may see beyond services: servers, networks, connections and links. */
type Seeing = { floors: boolean; networks: boolean; connections: boolean };
const onlySeen = (rows: Rows, can: Seeing): Rows => ({
  services: rows.services,
  groups: rows.groups,
  floors: can.floors ? rows.floors : [],
  networks: can.networks ? rows.networks : [],
  connections: can.connections ? rows.connections : [],
  links: can.connections ? rows.links : [],
});

/** How long a head may stay behind (`seen` ahead of `version`) while its keeper is at work, before a read rebuilds it. */
const KEEPER_GRACE_MS = 30_000;

/**
 * GET /topology?project_id=&environment_id=: refused as GET /services refuses (404 'Project not
 * found' for an unknown project or a non-member, 400 for an environment not a live one of the
 * project, 403 without services.view); servers, networks, and connections with links are drawn
 * when the caller may view them (every member may, today). Answered from the environment's snapshot
 * (snapshot/): its head is read with the access (one BatchGet), then its buckets (one round of
 * BatchGets), or nothing when that version is held already (`held`: by the caller, If-None-Match, or
 * by the process): the answer's `etag` names the snapshot's generation, version and what the caller
 * may see.
 */
export async function environmentTopology(
  ctx: AppContext,
  input: { project_id: string; environment_id: string },
  held: (etag: string) => boolean = () => false,
): Promise<{ etag: string; topology?: EnvironmentTopology }> {
  const { project_id: projectId, environment_id: envId } = input;
  const headKey = keys.topologyHead(projectId, envId);
  // Locally, the writes of this process reach the snapshot first (the stream's stand-in); nothing in the cloud.
  await settleTaps();
  const { access } = await accessInEnvironment(projectId, actorAccount(ctx).id, envId, [headKey]);
  access.require('services.view', SERVICE_FORBIDDEN.view, envId);
  const can = (p: 'floors.view' | 'networks.view' | 'connections.view') => access.can(p, envId);
  const seeing = { floors: can('floors.view'), networks: can('networks.view'), connections: can('connections.view') };
  let head = headOf(access.extra.get(keyId(headKey)));
  const now = ctx.clock.now().getTime();
  const behind = head && head.seen > head.version && now - Date.parse(head.seen_at ?? '') > KEEPER_GRACE_MS;
  if (!head || head.format !== FORMAT || behind) {
    await rebuildTopology(projectId, envId, ctx.clock.now());
    head = headOf(await getItem(headKey))!;
  }
  const mask = `${+seeing.floors}${+seeing.networks}${+seeing.connections}`;
  const etag = `"${head.generation}.${head.version}.${mask}"`;
  if (held(etag)) return { etag };
  const rows = await readAllRows(projectId, envId, head);
  return { etag, topology: topologyOf(projectId, envId, onlySeen(rows, seeing)) };
}
