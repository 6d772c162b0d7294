/// <reference lib="webworker" />
import { fastLayered, type LayoutEdge, type LayoutNode, type Positions } from './fast-layout';

/**
 * The topology's layout, off the main thread: ELK's layered algorithm (elkjs, loaded here on first use)
 * for environments it lays out quickly, the linear-time layered layout (fast-layout.ts) above that
 * size, or whichever the screen asks for.
 */
export type Engine = 'auto' | 'elk' | 'fast';
/** Node i's width and height; edge j from node source[j] to node target[j]. */
export interface LayoutRequest {
  width: Float64Array;
  height: Float64Array;
  source: Int32Array;
  target: Int32Array;
  engine: Engine;
  /** width / height of the drawing's frame: long layered runs wrap into rows towards it. */
  aspectRatio: number;
}
/** Node i's centre at (points[2i], points[2i + 1]). */
export type LayoutAnswer = { points: Float64Array; engine: 'elk' | 'fast'; ms: number } | { error: string };

/** Above this, ELK takes seconds on this kind of machine (measured: 300 nodes and 900 edges ≈ 2–6 s). */
export const ELK_MAX_NODES = 150;
export const ELK_MAX_EDGES = 450;

async function elkLayout(request: {
  nodes: LayoutNode[];
  edges: LayoutEdge[];
  aspectRatio: number;
}): Promise<Positions> {
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
    edges: request.edges.map((e, i) => ({ id: `e${i}`, sources: [e.source], targets: [e.target] })),
  });
  const positions: Positions = {};
  for (const child of graph.children ?? [])
    positions[child.id] = { x: (child.x ?? 0) + (child.width ?? 0) / 2, y: (child.y ?? 0) + (child.height ?? 0) / 2 };
  return positions;
}

self.onmessage = async (event: MessageEvent<LayoutRequest>) => {
  const { width, height, source, target, engine, aspectRatio } = event.data;
  const started = performance.now();
  // The layouts name nodes: here by their numbers.
  const nodes = Array.from(width, (w, i) => ({ id: String(i), width: w, height: height[i] }));
  const edges: LayoutEdge[] = [];
  source.forEach((a, j) => {
    if (a >= 0 && target[j] >= 0) edges.push({ source: String(a), target: String(target[j]) });
  });
  const useElk =
    engine === 'elk' || (engine === 'auto' && nodes.length <= ELK_MAX_NODES && edges.length <= ELK_MAX_EDGES);
  try {
    const positions = useElk ? await elkLayout({ nodes, edges, aspectRatio }) : fastLayered(nodes, edges);
    const points = new Float64Array(2 * nodes.length);
    nodes.forEach((n, i) => {
      points[2 * i] = positions[n.id]?.x ?? 0;
      points[2 * i + 1] = positions[n.id]?.y ?? 0;
    });
    const answer: LayoutAnswer = {
      points,
      engine: useElk ? 'elk' : 'fast',
      ms: Math.round(performance.now() - started),
    };
    self.postMessage(answer, [points.buffer]);
  } catch (err) {
    self.postMessage({ error: String(err) } satisfies LayoutAnswer);
  }
};
