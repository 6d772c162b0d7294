import type { Topology } from '../../api';

/** What the topology draws: services, servers and networks, and the edges between them. */
export type NodeKind = Topology['nodes']['kind'][number];
export type EdgeKind = Topology['edges']['kind'][number];

export interface GraphNode {
  id: string;
  kind: NodeKind;
  ref: string;
  label: string;
  group: string;
  width: number;
  height: number;
}
export interface GraphEdge {
  id: string;
  kind: EdgeKind;
  source: string;
  target: string;
  /** connection: as stored; the arrow is drawn at `b` for a_to_b, at `a` for b_to_a, both ends for both. */
  direction?: 'none' | 'a_to_b' | 'b_to_a' | 'both';
  label?: string;
}

/** The screen's data: GET /topology's answer (one request; columnar, edges' ends index the nodes). */
export type TopologyData = Topology;

const PREFIX: Record<NodeKind, string> = { service: 's', floor: 'f', network: 'n' };
export const nodeId = (kind: NodeKind, id: string) => `${PREFIX[kind]}:${id}`;
const widthOf = (label: string) => Math.min(220, Math.max(70, label.length * 7.2 + 24));
const labelOf = (kind: NodeKind, name: string | null, type: string | null, cidr: string | null) =>
  kind === 'floor'
    ? (name ?? `${type ?? ''} server`.trim())
    : kind === 'network'
      ? `${name ?? ''} ${cidr ?? ''}`.trim()
      : (name ?? '');
const EDGE_PREFIX: Record<EdgeKind, string> = { connection: 'c', link: 'l', hosting: 'h', attachment: 'a' };

export function buildGraph(data: TopologyData): { nodes: GraphNode[]; edges: GraphEdge[] } {
  const { kind, id, name, group, type, cidr } = data.nodes;
  const nodes: GraphNode[] = kind.map((k, i) => {
    const label = labelOf(k, name[i], type[i], cidr[i]);
    return {
      id: nodeId(k, id[i]),
      kind: k,
      ref: id[i],
      label,
      group: group[i] ?? '',
      width: widthOf(label),
      height: 34,
    };
  });
  const e = data.edges;
  const edges: GraphEdge[] = e.kind.map((k, i) => ({
    id: `${EDGE_PREFIX[k]}:${i}`,
    kind: k,
    source: nodes[e.source[i]].id,
    target: nodes[e.target[i]].id,
    ...(k === 'connection' ? { direction: e.direction[i] ?? 'none', label: e.name[i] ?? undefined } : {}),
  }));
  return { nodes, edges };
}

/** Whether two graphs have the same nodes and edge ends in the same order (a layout of one fits the other). */
export const sameShape = (a: ReturnType<typeof buildGraph>, b: ReturnType<typeof buildGraph>) =>
  a.nodes.length === b.nodes.length &&
  a.edges.length === b.edges.length &&
  a.nodes.every((n, i) => n.id === b.nodes[i].id) &&
  a.edges.every((e, i) => e.source === b.edges[i].source && e.target === b.edges[i].target);
