import type { Positions } from './fast-layout';
import type { GraphEdge, GraphNode } from './graph';
import type { Engine, LayoutAnswer, LayoutRequest } from './layout.worker';

/** The topology's layout, computed in a worker (ELK's layered algorithm or the fast layered one). */

const layoutWorker = () => new Worker(new URL('./layout.worker.ts', import.meta.url), { type: 'module' });
/** A worker started with the screen's code, so that its script is loaded while the data is read (the first layout takes it). */
let spare: Worker | undefined = layoutWorker();

export function layout(
  nodes: GraphNode[],
  edges: GraphEdge[],
  engine: Engine,
  aspectRatio: number,
): Promise<Extract<LayoutAnswer, { positions: Positions }>> {
  return new Promise((resolve, reject) => {
    const worker = spare ?? layoutWorker();
    spare = undefined;
    worker.onmessage = (e: MessageEvent<LayoutAnswer>) => {
      worker.terminate();
      'error' in e.data ? reject(new Error(e.data.error)) : resolve(e.data);
    };
    worker.onerror = (e) => {
      worker.terminate();
      reject(new Error(e.message || 'The layout worker failed'));
    };
    const request: LayoutRequest = {
      nodes: nodes.map(({ id, width, height }) => ({ id, width, height })),
      edges: edges.map(({ id, source, target }) => ({ id, source, target })),
      engine,
      aspectRatio,
    };
    worker.postMessage(request);
  });
}
