import type { BlastRadius } from '../../api';
import { nodeId, type GraphEdge, type GraphNode } from './graph';

/**
 * What the picture shows beyond its items, whichever view draws it: what the filters hide, what the
 * search found, and the chosen service's blast radius (distance per node, the edges of its paths).
 */
export interface Marks {
  /** node and edge ids not drawn (a hidden node's edges go with it). */
  hidden: Set<string>;
  /** node ids the search found. */
  match: Set<string>;
  /** a blast radius is shown: everything outside it is faded. */
  focus: boolean;
  /** node id → 0 for the chosen service, else its distance. */
  distance: Map<string, number>;
  /** edge ids on the affected items' paths. */
  path: Set<string>;
}

export interface MarkState {
  hiddenKinds: Set<string>;
  group: string;
  search: string;
  blast?: BlastRadius;
}

/** Edge ids by their two ends (either order), built once per graph: a path step finds its edges in O(1). */
export function edgesByEnds(edges: GraphEdge[]): Map<string, string[]> {
  const index = new Map<string, string[]>();
  const add = (key: string, id: string) => (index.get(key) ?? index.set(key, []).get(key)!).push(id);
  for (const e of edges) {
    add(`${e.source} ${e.target}`, e.id);
    if (e.source !== e.target) add(`${e.target} ${e.source}`, e.id);
  }
  return index;
}

export function marksOf(
  graph: { nodes: GraphNode[]; edges: GraphEdge[] },
  ends: Map<string, string[]>,
  { hiddenKinds, group, search, blast }: MarkState,
): Marks {
  const hidden = new Set<string>();
  if (hiddenKinds.size || group) {
    for (const n of graph.nodes)
      if (hiddenKinds.has(n.kind) || (group && n.kind === 'service' && n.group !== group)) hidden.add(n.id);
    for (const e of graph.edges) if (hiddenKinds.has(e.kind)) hidden.add(e.id);
  }
  const term = search.trim().toLowerCase();
  const match = new Set(term ? graph.nodes.filter((n) => n.label.toLowerCase().includes(term)).map((n) => n.id) : []);
  const distance = new Map<string, number>();
  const path = new Set<string>();
  if (blast) {
    distance.set(nodeId(blast.origin.type, blast.origin.id), 0);
    for (const a of blast.affected) {
      distance.set(nodeId(a.type, a.id), a.distance);
      for (let i = 1; i < a.path.length; i++) {
        for (const id of ends.get(
          `${nodeId(a.path[i - 1].type, a.path[i - 1].id)} ${nodeId(a.path[i].type, a.path[i].id)}`,
        ) ?? [])
          path.add(id);
      }
    }
  }
  return { hidden, match, focus: !!blast, distance, path };
}
