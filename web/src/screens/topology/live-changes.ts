/**
 * Live changes applied to the topology's data: a change of the catalog as the live stream carries it
 * (`{kind, id, op, item}`, `item` as the item's GET answers it, absent on delete) turns into the data
 * GET /topology would answer now, without reading it again. What the data cannot place (a deleted
 * connection or link it never saw by id, a group renamed) answers `false`: the screen reads it again
 * (a 304 when nothing changed after all).
 */
export interface LiveChange {
  kind: string;
  id: string;
  op: 'created' | 'updated' | 'deleted';
  item?: Record<string, unknown>;
}

type NodeKind = 'service' | 'floor' | 'network';
type EdgeKind = 'connection' | 'link' | 'hosting' | 'attachment';
type Direction = 'none' | 'a_to_b' | 'b_to_a' | 'both';
/** GET /topology's answer (graph.ts's `TopologyData`), spelt out: this module stands alone (its unit test loads it without the API client). */
export interface TopologyData {
  project_id: string;
  environment_id: string;
  nodes: {
    kind: NodeKind[];
    id: string[];
    name: (string | null)[];
    group: (string | null)[];
    type: (string | null)[];
    cidr: (string | null)[];
  };
  edges: {
    kind: EdgeKind[];
    source: number[];
    target: number[];
    direction: (Direction | null)[];
    name: (string | null)[];
  };
}
interface Node {
  kind: NodeKind;
  id: string;
  name: string | null;
  group: string | null;
  type: string | null;
  cidr: string | null;
}
interface Edge {
  kind: EdgeKind;
  source: string;
  target: string;
  direction: Direction | null;
  name: string | null;
  /** A connection's or link's id, when a change named it. */
  ref?: string;
}

const NODE_KIND: Record<string, NodeKind> = { service: 'service', service_floor: 'floor', network: 'network' };
const key = (kind: NodeKind, id: string) => `${kind}:${id}`;
const text = (v: unknown) => (typeof v === 'string' ? v : null);
const ids = (v: unknown) => (Array.isArray(v) ? [...new Set(v.filter((x): x is string => typeof x === 'string'))] : []);
const byName = (a: Node, b: Node) => {
  const x = a.name ?? '';
  const y = b.name ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
};
const KIND_ORDER: NodeKind[] = ['service', 'floor', 'network'];
const EDGE_ORDER: EdgeKind[] = ['connection', 'link', 'hosting', 'attachment'];

/** The topology as nodes by key and edges by their ends: changed in place, answered as GET /topology's columns. */
export class TopologyModel {
  private readonly nodes = new Map<string, Node>();
  private edges: Edge[] = [];
  /** Group names by id, as changes name them (a service's group, until a group change says otherwise). */
  private readonly groups = new Map<string, string>();

  private readonly data: TopologyData;

  constructor(data: TopologyData) {
    this.data = data;
    const n = data.nodes;
    const keys = n.id.map((id, i) => key(n.kind[i], id));
    for (const [i, id] of n.id.entries())
      this.nodes.set(keys[i], {
        kind: n.kind[i],
        id,
        name: n.name[i],
        group: n.group[i],
        type: n.type[i],
        cidr: n.cidr[i],
      });
    const e = data.edges;
    this.edges = e.kind.map((kind, i) => ({
      kind,
      source: keys[e.source[i]],
      target: keys[e.target[i]],
      direction: e.direction[i],
      name: e.name[i],
    }));
  }

  /** Applies one change; false when the data cannot place it (read the topology again). */
  apply(change: LiveChange): boolean {
    const item = change.item ?? {};
    const nodeKind = NODE_KIND[change.kind];
    if (nodeKind) {
      const k = key(nodeKind, change.id);
      if (change.op === 'deleted') {
        this.nodes.delete(k);
        this.edges = this.edges.filter((e) => e.source !== k && e.target !== k);
        return true;
      }
      this.putNode(nodeKind, change.id, item);
      return true;
    }
    if (change.kind === 'connection' || change.kind === 'link') return this.putEdge(change);
    if (change.kind === 'group') {
      if (change.op === 'created') {
        this.groups.set(change.id, String(item.name ?? ''));
        return true;
      }
      return false;
    }
    // Subgroups are not drawn; anything else (the environment) is the screen's matter.
    return change.kind === 'subgroup';
  }

  private putNode(kind: NodeKind, id: string, item: Record<string, unknown>) {
    const k = key(kind, id);
    const was = this.nodes.get(k);
    const groupId = text(item.group_id);
    const group = kind !== 'service' ? null : groupId ? (this.groups.get(groupId) ?? was?.group ?? null) : null;
    this.nodes.set(k, {
      kind,
      id,
      name: kind === 'floor' ? text(item.hostname) : text(item.name),
      group,
      type: kind === 'floor' ? text(item.type ?? item.floor_type) : null,
      cidr: kind === 'network' ? text(item.cidr) : null,
    });
    if (kind === 'network') return;
    // Its hosting and attachments are the item's own fields: drawn afresh from them.
    this.edges = this.edges.filter((e) => !(e.source === k && (e.kind === 'hosting' || e.kind === 'attachment')));
    const floor = kind === 'service' ? text(item.service_floor_id) : null;
    if (floor && this.nodes.has(key('floor', floor)))
      this.edges.push({ kind: 'hosting', source: k, target: key('floor', floor), direction: null, name: null });
    for (const network of ids(item.network_ids))
      if (this.nodes.has(key('network', network)))
        this.edges.push({
          kind: 'attachment',
          source: k,
          target: key('network', network),
          direction: null,
          name: null,
        });
  }

  private putEdge(change: LiveChange): boolean {
    const kind: EdgeKind = change.kind === 'link' ? 'link' : 'connection';
    const at = this.edges.findIndex((e) => e.ref === change.id);
    if (change.op === 'deleted') {
      if (at < 0) return false;
      this.edges.splice(at, 1);
      return true;
    }
    const item = change.item ?? {};
    const end = (type: unknown, id: unknown) => key(type === 'floor' ? 'floor' : 'service', String(id));
    const edge: Edge =
      kind === 'link'
        ? {
            kind,
            source: end('service', item.from_service_id),
            target: end('service', item.to_service_id),
            direction: null,
            name: null,
          }
        : {
            kind,
            source: end(item.a_type, item.a_id),
            target: end(item.b_type, item.b_id),
            direction: (text(item.direction) as Direction | null) ?? 'none',
            name: text(item.name),
          };
    edge.ref = change.id;
    if (at >= 0) this.edges[at] = edge;
    else if (change.op === 'updated') {
      // An edge read with the topology (no id): the one between the same ends, if only one is.
      const same = this.edges.flatMap((e, i) =>
        e.kind === kind && !e.ref && e.source === edge.source && e.target === edge.target ? [i] : [],
      );
      if (same.length !== 1) return false;
      this.edges[same[0]] = edge;
    } else this.edges.push(edge);
    return true;
  }

  /** The data as GET /topology answers it: nodes by kind and name, edges by kind; edges to a node not drawn left out. */
  toData(): TopologyData {
    const nodes = [...this.nodes.values()].sort(
      (a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || byName(a, b),
    );
    const index = new Map(nodes.map((n, i) => [key(n.kind, n.id), i]));
    const edges = this.edges
      .filter((e) => index.has(e.source) && index.has(e.target))
      .sort((a, b) => EDGE_ORDER.indexOf(a.kind) - EDGE_ORDER.indexOf(b.kind));
    return {
      ...this.data,
      nodes: {
        kind: nodes.map((n) => n.kind),
        id: nodes.map((n) => n.id),
        name: nodes.map((n) => n.name),
        group: nodes.map((n) => n.group),
        type: nodes.map((n) => n.type),
        cidr: nodes.map((n) => n.cidr),
      },
      edges: {
        kind: edges.map((e) => e.kind),
        source: edges.map((e) => index.get(e.source)!),
        target: edges.map((e) => index.get(e.target)!),
        direction: edges.map((e) => e.direction),
        name: edges.map((e) => e.name),
      },
    };
  }
}
