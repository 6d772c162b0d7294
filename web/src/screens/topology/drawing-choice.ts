import type { marksOf } from './marks';
import type { TopologyView, ViewInput } from './view';

/** Which drawing the topology gets (detailed or fast), and that drawing made once its code is loaded. */

/** Above this many elements the automatic choice is the fast (WebGL) drawing. */
const FAST_DRAWING_FROM = 1500;

/** The person's choice of drawing; `auto` picks by the number of elements. */
export type Drawing = 'auto' | 'detailed' | 'fast';

/**
 * The drawing for this many items: the detailed one (Cytoscape: shapes, dashes, curves) up to
 * FAST_DRAWING_FROM elements, the fast one (sigma.js on WebGL) above, unless the person chose.
 * The WebGL one's SVG and PNG come from a detailed drawing made for the export.
 */
export const fastFor = (choice: Drawing, graph: { nodes: unknown[]; edges: unknown[] }) =>
  choice === 'fast' || (choice === 'auto' && graph.nodes.length + graph.edges.length > FAST_DRAWING_FROM);
/** The drawing's code, asked for while the layout runs (`drawing` then finds it loaded). */
export const preloadDrawing = (fast: boolean) =>
  void (fast ? import('./sigma-view') : import('./cytoscape-view')).catch(() => {});

type Prepared = ReturnType<typeof import('./sigma-view').prepareSigma>;
/**
 * The fast drawing made as far as it can be before the layout is known (sigma-view.ts, `prepareSigma`),
 * started while the layout runs; `kill` when it is not drawn after all. Nothing for the detailed drawing.
 */
export function prepareDrawing(
  choice: Drawing,
  container: HTMLElement,
  graph: ViewInput['graph'],
): Promise<Prepared | undefined> {
  if (!fastFor(choice, graph)) return Promise.resolve(undefined);
  return import('./sigma-view').then((m) => (m.webglAvailable() ? m.prepareSigma(container, graph) : undefined));
}

export async function drawing(
  choice: Drawing,
  input: ViewInput,
  marks: () => ReturnType<typeof marksOf>,
  onDrawn: () => void,
  prepared?: Prepared,
): Promise<{ view: TopologyView; fast: boolean }> {
  const fast = fastFor(choice, input.graph);
  if (fast) {
    const { sigmaView, webglAvailable } = await import('./sigma-view');
    if (prepared || webglAvailable()) {
      const picture = async (format: 'svg' | 'png') =>
        (await import('./cytoscape-view')).pictureOf(input, marks(), format);
      const view = prepared ? prepared.draw(input, picture) : sigmaView(input, picture);
      requestAnimationFrame(onDrawn);
      return { view, fast };
    }
  }
  const { cytoscapeView } = await import('./cytoscape-view');
  return { view: cytoscapeView(input, onDrawn), fast: false };
}
