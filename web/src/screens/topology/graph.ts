import type { Connection, Floor, Link, Network, Service } from '../../api';

/** What the topology draws: services, servers and networks, and the edges between them. */
export type NodeKind = 'service' | 'floor' | 'network';
export type EdgeKind = 'connection' | 'link' | 'hosting' | 'attachment';

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

export interface TopologyData {
  services: Service[];
  floors: Floor[];
  networks: Network[];
  connections: Connection[];
  links: Link[];
  /** network ids attached to a service or floor, by its id (as far as they were read). */
  attachments: Map<string, string[]>;
}

export const nodeId = (kind: 'service' | 'floor', id: string) => `${kind === 'service' ? 's' : 'f'}:${id}`;
const widthOf = (label: string) => Math.min(220, Math.max(70, label.length * 7.2 + 24));

export function buildGraph(data: TopologyData): { nodes: GraphNode[]; edges: GraphEdge[] } {
  const nodes: GraphNode[] = [];
  const known = new Set<string>();
  const add = (node: Omit<GraphNode, 'width' | 'height'>) => {
    known.add(node.id);
    nodes.push({ ...node, width: widthOf(node.label), height: 34 });
  };
  for (const s of data.services) add({ id: nodeId('service', s.id), kind: 'service', ref: s.id, label: s.name, group: s.group_name ?? '' });
  for (const f of data.floors) add({ id: nodeId('floor', f.id), kind: 'floor', ref: f.id, label: f.hostname ?? `${f.type} server`, group: '' });
  for (const n of data.networks) add({ id: `n:${n.id}`, kind: 'network', ref: n.id, label: `${n.name} ${n.cidr}`, group: '' });

  const edges: GraphEdge[] = [];
  for (const c of data.connections) {
    const source = nodeId(c.a_type, c.a_id);
    const target = nodeId(c.b_type, c.b_id);
    if (known.has(source) && known.has(target)) edges.push({ id: `c:${c.id}`, kind: 'connection', source, target, direction: c.direction, label: c.name ?? undefined });
  }
  for (const l of data.links) {
    const source = nodeId('service', l.from_service_id);
    const target = nodeId('service', l.to_service_id);
    if (known.has(source) && known.has(target)) edges.push({ id: `l:${l.id}`, kind: 'link', source, target });
  }
  for (const s of data.services) {
    const floor = s.service_floor_id && nodeId('floor', s.service_floor_id);
    if (floor && known.has(floor)) edges.push({ id: `h:${s.id}`, kind: 'hosting', source: nodeId('service', s.id), target: floor });
  }
  for (const [owner, networks] of data.attachments) {
    for (const network of networks) if (known.has(owner) && known.has(`n:${network}`)) edges.push({ id: `a:${owner}:${network}`, kind: 'attachment', source: owner, target: `n:${network}` });
  }
  return { nodes, edges };
}
