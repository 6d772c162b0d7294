/// <reference lib="webworker" />
import { fastLayered, type LayoutEdge, type LayoutNode, type Positions } from './fast-layout';

/**
 * The topology's layout, off the main thread: ELK's layered algorithm (elkjs, loaded here on first use)
 * for environments it lays out quickly, the linear-time layered layout (fast-layout.ts) above that
 * size, or whichever the screen asks for.
 */
export type Engine = 'auto' | 'elk' | 'fast';
export interface LayoutRequest {
  nodes: LayoutNode[];
  edges: (LayoutEdge & { id: string })[];
  engine: Engine;
  /** width / height of the drawing's frame: long layered runs wrap into rows towards it. */
  aspectRatio: number;
}
export type LayoutAnswer = { positions: Positions; engine: 'elk' | 'fast'; ms: number } | { error: string };

/** Above this, ELK takes seconds on this kind of machine (measured: 300 nodes and 900 edges ≈ 2–6 s). */
export const ELK_MAX_NODES = 150;
export const ELK_MAX_EDGES = 450;

async function elkLayout(request: LayoutRequest): Promise<Positions> {
  const { default: ELK } = await import('elkjs/lib/elk.bundled.js');
  const elk = new ELK();
  const big = request.nodes.length > 60;
  const graph = await elk.layout({
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.spacing.nodeNode': '24',
      'elk.layered.spacing.nodeNodeBetweenLayers': '70',
      'elk.separateConnectedComponents': 'true',
      // A long chain of layers wraps into rows (ELK's graph wrapping) instead of a strip far wider than
      // the frame, which the fit would zoom out until no label is readable.
      'elk.layered.wrapping.strategy': 'MULTI_EDGE',
      'elk.aspectRatio': String(request.aspectRatio),
      ...(big ? { 'elk.layered.thoroughness': '1', 'elk.layered.nodePlacement.strategy': 'SIMPLE' } : {}),
    },
    children: request.nodes.map((n) => ({ id: n.id, width: n.width, height: n.height })),
    edges: request.edges.map((e) => ({ id: e.id, sources: [e.source], targets: [e.target] })),
  });
  const positions: Positions = {};
  for (const child of graph.children ?? [])
    positions[child.id] = { x: (child.x ?? 0) + (child.width ?? 0) / 2, y: (child.y ?? 0) + (child.height ?? 0) / 2 };
  return positions;
}

self.onmessage = async (event: MessageEvent<LayoutRequest>) => {
  const request = event.data;
  const started = performance.now();
  const useElk =
    request.engine === 'elk' ||
    (request.engine === 'auto' && request.nodes.length <= ELK_MAX_NODES && request.edges.length <= ELK_MAX_EDGES);
  try {
    const positions = useElk ? await elkLayout(request) : fastLayered(request.nodes, request.edges);
    self.postMessage({
      positions,
      engine: useElk ? 'elk' : 'fast',
      ms: Math.round(performance.now() - started),
    } satisfies LayoutAnswer);
  } catch (err) {
    self.postMessage({ error: String(err) } satisfies LayoutAnswer);
  }
};
