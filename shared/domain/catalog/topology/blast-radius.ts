import { keys } from '#db/keys';
import { notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';

import type { Connection } from './connection-entity.ts';
import type { Link } from './link-entity.ts';

import { ENTITY_NOT_FOUND, type EntityType } from './ends.ts';
import { queryPrefix } from '#db/query';
import { isLive, LIFECYCLE_FIELDS, type Lifecycle } from '#db/live';
import { accessToItem } from '#domain/tenancy';

/**
 * "What breaks if this fails?" Impact travels along these edges (X → Y: X failing affects Y):
 * - link from A to B (A depends on B): B → A;
 * - connection a_to_b (a calls / depends on b, as an arrow on a diagram): b → a; b_to_a: a → b;
 *   both: both ways; none (dependency not stated): both ways — a blast radius must not
 *   under-report, so an undirected connection is treated as a possible dependency either way;
 * - hosting: a floor → every live service whose service_floor_id is that floor.
 * Breadth-first from the origin, each entity once (shortest path wins), at most `maxDepth` hops.
 */

export const DEFAULT_MAX_DEPTH = 10;
export const MAX_MAX_DEPTH = 20;

export type Via = 'link' | 'connection' | 'hosting';
export interface NodeRef {
  type: EntityType;
  id: string;
}
interface Node extends NodeRef {
  name: string | null;
}
export interface Affected extends Node {
  distance: number;
  /** From the origin (first) to this entity (last). */
  path: NodeRef[];
  /** The kind of the last hop. */
  via: Via;
}
export interface BlastRadius {
  origin: Node;
  max_depth: number;
  affected: Affected[];
  counts: { services: number; floors: number };
  /** True when entities beyond max_depth would be affected too. */
  truncated: boolean;
}

interface ServiceRow extends Lifecycle {
  id: string;
  name?: string | null;
  service_floor_id?: string | null;
}
interface FloorRow extends Lifecycle {
  id: string;
  hostname?: string | null;
}
/** Projections of the connection and link entities: only what the graph needs. */
type ConnectionRow = Pick<Connection, 'a_type' | 'a_id' | 'b_type' | 'b_id' | 'direction'> & Lifecycle;
type LinkRow = Pick<Link, 'from_service_id' | 'to_service_id'> & Lifecycle;

export interface Topology {
  services: ServiceRow[];
  floors: FloorRow[];
  connections: ConnectionRow[];
  links: LinkRow[];
}

const nodeId = (type: EntityType, id: string) => `${type}#${id}`;

/**
 * Adjacency "fails → affects" over live entities only (edges to deleted or absent ones are dropped).
 * Linear in the edges: each hop is kept once per (from, to) pair, the first kind seen winning (links,
 * then connections, then hosting: the order a breadth-first walk would have taken them in), so many
 * parallel edges between two entities cost one neighbour entry, not a copy of the list per edge.
 */
export function impactGraph(t: Topology) {
  const nodes = new Map<string, Node>();
  for (const s of t.services)
    if (isLive(s)) nodes.set(nodeId('service', s.id), { type: 'service', id: s.id, name: s.name ?? null });
  for (const f of t.floors)
    if (isLive(f)) nodes.set(nodeId('floor', f.id), { type: 'floor', id: f.id, name: f.hostname ?? null });
  const adjacent = new Map<string, Map<string, Via>>();
  const add = (from: string, to: string, via: Via) => {
    if (from === to || !nodes.has(from) || !nodes.has(to)) return;
    let out = adjacent.get(from);
    if (!out) adjacent.set(from, (out = new Map()));
    if (!out.has(to)) out.set(to, via);
  };
  for (const l of t.links)
    if (isLive(l)) add(nodeId('service', l.to_service_id), nodeId('service', l.from_service_id), 'link');
  for (const c of t.connections) {
    if (!isLive(c)) continue;
    const a = nodeId(c.a_type, c.a_id);
    const b = nodeId(c.b_type, c.b_id);
    if (c.direction !== 'b_to_a') add(b, a, 'connection'); // a_to_b, both, none: a depends on b
    if (c.direction !== 'a_to_b') add(a, b, 'connection'); // b_to_a, both, none: b depends on a
  }
  for (const s of t.services)
    if (isLive(s) && s.service_floor_id) add(nodeId('floor', s.service_floor_id), nodeId('service', s.id), 'hosting');
  // Neighbours in name order (then type, then id) make the chosen shortest path deterministic, and
  // the same in a copy of the environment (an import gives new ids to the same names).
  const rank = new Map([...nodes].map(([key, n]) => [key, `${n.name ?? ''}\u0000${n.type}\u0000${n.id}`]));
  const order = (x: { to: string }, y: { to: string }) => (rank.get(x.to)! < rank.get(y.to)! ? -1 : 1);
  const edges = new Map<string, { to: string; via: Via }[]>();
  for (const [from, out] of adjacent) edges.set(from, [...out].map(([to, via]) => ({ to, via })).sort(order));
  return { nodes, edges };
}

/** Breadth-first over the impact graph; the origin itself is never in `affected` (loops end there). */
export function computeBlastRadius(t: Topology, origin: NodeRef, maxDepth: number): BlastRadius {
  const { nodes, edges } = impactGraph(t);
  const originId = nodeId(origin.type, origin.id);
  const originNode = nodes.get(originId) ?? { ...origin, name: null };
  const reached = new Map<string, Affected>();
  const pathOf = (id: string): NodeRef[] => reached.get(id)?.path ?? [{ type: origin.type, id: origin.id }];
  let frontier = [originId];
  for (let distance = 1; distance <= maxDepth && frontier.length; distance++) {
    const next: string[] = [];
    for (const from of frontier) {
      for (const { to, via } of edges.get(from) ?? []) {
        if (to === originId || reached.has(to)) continue;
        const node = nodes.get(to)!;
        reached.set(to, { ...node, distance, path: [...pathOf(from), { type: node.type, id: node.id }], via });
        next.push(to);
      }
    }
    frontier = next;
  }
  const truncated = frontier.some((from) =>
    (edges.get(from) ?? []).some(({ to }) => to !== originId && !reached.has(to)),
  );
  const affected = [...reached.values()].sort(
    (x, y) =>
      x.distance - y.distance ||
      x.type.localeCompare(y.type) ||
      (x.name ?? '').localeCompare(y.name ?? '') ||
      x.id.localeCompare(y.id),
  );
  return {
    origin: { type: originNode.type, id: originNode.id, name: originNode.name },
    max_depth: maxDepth,
    affected,
    counts: {
      services: affected.filter((a) => a.type === 'service').length,
      floors: affected.filter((a) => a.type === 'floor').length,
    },
    truncated,
  };
}

/** The environment's topology: four Queries on its key prefixes, in parallel, fetching only what the graph needs. */
async function loadTopology(projectId: string, envId: string): Promise<Topology> {
  const [services, floors, connections, links] = await Promise.all([
    queryPrefix<ServiceRow>(projectId, keys.servicePrefix(envId), {
      projection: ['id', 'name', 'service_floor_id', ...LIFECYCLE_FIELDS],
    }),
    queryPrefix<FloorRow>(projectId, keys.floorPrefix(envId), { projection: ['id', 'hostname', ...LIFECYCLE_FIELDS] }),
    queryPrefix<ConnectionRow>(projectId, keys.connectionPrefix(envId), {
      projection: ['a_type', 'a_id', 'b_type', 'b_id', 'direction', ...LIFECYCLE_FIELDS],
    }),
    queryPrefix<LinkRow>(projectId, keys.linkPrefix(envId), {
      projection: ['from_service_id', 'to_service_id', ...LIFECYCLE_FIELDS],
    }),
  ]);
  return { services, floors, connections, links };
}

const VIEW_PERMISSION = { service: 'services.view', floor: 'floors.view' } as const;

/**
 * GET /services/{id}/blast-radius and GET /service-floors/{id}/blast-radius: locate, then one BatchGet
 * (access + the origin) and, beside it, the environment's topology in one parallel round of Queries
 * (answered only when the access passes): two round trips after the token check.
 */
export async function blastRadiusOf(ctx: AppContext, input: NodeRef & { max_depth: number }): Promise<BlastRadius> {
  const origin: NodeRef = { type: input.type, id: input.id };
  const permission = VIEW_PERMISSION[origin.type];
  const { alongside } = await accessToItem({
    id: origin.id,
    kind: origin.type,
    userId: actorAccount(ctx).id,
    notFound: notFound(ENTITY_NOT_FOUND[origin.type]),
    permission: { key: permission, detail: `Missing permission: ${permission}` },
    alongside: (located) => loadTopology(located.projectId, located.envId),
  });
  return computeBlastRadius(alongside as Topology, origin, input.max_depth);
}
