import type { Positions } from './fast-layout';
import type { GraphEdge, GraphNode } from './graph';
import type { Engine, LayoutAnswer, LayoutRequest } from './layout.worker';

/**
 * The topology's layout, computed in a worker (ELK's layered algorithm or the fast layered one). What
 * crosses to the worker and back is typed arrays (sizes, ends as node numbers; the answer's points),
 * moved rather than copied: a copy of 10,000 nodes and 44,000 edges as objects held the page's thread.
 */

const layoutWorker = () => new Worker(new URL('./layout.worker.ts', import.meta.url), { type: 'module' });
/** A worker started with the screen's code, so that its script is loaded while the data is read (the first layout takes it). */
let spare: Worker | undefined = layoutWorker();

export function layout(
  nodes: GraphNode[],
  edges: GraphEdge[],
  engine: Engine,
  aspectRatio: number,
): Promise<{ positions: Positions; engine: 'elk' | 'fast'; ms: number }> {
  return new Promise((resolve, reject) => {
    const worker = spare ?? layoutWorker();
    spare = undefined;
    worker.onmessage = (e: MessageEvent<LayoutAnswer>) => {
      worker.terminate();
      if ('error' in e.data) return reject(new Error(e.data.error));
      const { points, engine: used, ms } = e.data;
      const positions: Positions = {};
      nodes.forEach((n, i) => {
        positions[n.id] = { x: points[2 * i], y: points[2 * i + 1] };
      });
      resolve({ positions, engine: used, ms });
    };
    worker.onerror = (e) => {
      worker.terminate();
      reject(new Error(e.message || 'The layout worker failed'));
    };
    const index = new Map(nodes.map((n, i) => [n.id, i]));
    const request: LayoutRequest = {
      width: Float64Array.from(nodes, (n) => n.width),
      height: Float64Array.from(nodes, (n) => n.height),
      source: Int32Array.from(edges, (e) => index.get(e.source) ?? -1),
      target: Int32Array.from(edges, (e) => index.get(e.target) ?? -1),
      engine,
      aspectRatio,
    };
    worker.postMessage(request, [
      request.width.buffer,
      request.height.buffer,
      request.source.buffer,
      request.target.buffer,
    ]);
  });
}
