import { MultiDirectedGraph } from 'graphology';
import Sigma from 'sigma';
import { EdgeArrowProgram, EdgeLineProgram, EdgeRectangleProgram, NodePointProgram } from 'sigma/rendering';
import type { EdgeDisplayData, NodeDisplayData } from 'sigma/types';
import type { GraphEdge, GraphNode } from './graph';
import type { Marks } from './marks';
import { moveAsPicture } from './sigma-moves';
import { COLORS, reportZoom, type TopologyView, type ViewInput } from './view';

type NodeAttributes = {
  x: number;
  y: number;
  size: number;
  color: string;
  label: string;
  kind: GraphNode['kind'];
  ref: string;
};
type EdgeAttributes = { size: number; color: string; type: 'arrow' | 'line'; kind: GraphEdge['kind'] };

const SIZE = { service: 3, floor: 5, network: 6 } as const;
/**
 * How edges are drawn: in a drawing of more than OVERVIEW_FROM edges, as 1-pixel lines (one GL line
 * each) while the view shows much of it, where arrowheads are too small to see and each costs
 * triangles (the first frame of 7,383 arrowed edges took 0.3 s of software GL here, lines 0.1 s);
 * with arrowheads and thickness once zoomed in past DETAIL_RATIO (the camera's ratio: 1 is the whole
 * drawing) and the view rests (the change reads every edge again: 0.3 s at 7,000 edges), and always
 * in smaller drawings. Above DETAIL_UP_TO edges, lines at every zoom (the change would hold the page
 * for seconds: 44,000 edges took 1 to 2 s here).
 */
const OVERVIEW_FROM = 2000;
const DETAIL_UP_TO = 12_000;
/** How long the view rests before the edges' drawing changes (ms). */
const REST_MS = 300;
const OVERVIEW_EDGES = { arrow: EdgeLineProgram, line: EdgeLineProgram };
const DETAIL_EDGES = { arrow: EdgeArrowProgram, line: EdgeRectangleProgram };
const LINES_ONLY = { line: EdgeLineProgram };
const DETAIL_RATIO = 0.5;
const EDGE_COLOR = {
  connection: COLORS.edge,
  link: COLORS.edge,
  hosting: COLORS.hosting,
  attachment: COLORS.attachment,
} as const;

/** Whether this browser draws with WebGL (a GPU, or a software one). */
export function webglAvailable(): boolean {
  try {
    return !!document.createElement('canvas').getContext('webgl');
  } catch {
    return false;
  }
}

/**
 * The fast drawing (sigma.js on WebGL), for big environments: thousands of items are drawn as
 * buffers in one pass instead of one canvas path each, so 2,000 services with 6,000 connections
 * appear and pan within the budget where the detailed (Cytoscape) drawing takes seconds. Nodes are
 * discs coloured by kind, edges straight with an arrow towards the end that receives; labels appear
 * as the view zooms in. Marks are applied by sigma's reducers. Its pictures (SVG, PNG) are made by
 * the detailed view (`picture` in the screen).
 */
const marked = (m: Marks) => m.hidden.size > 0 || m.match.size > 0 || m.focus;

export function sigmaView(input: ViewInput, picture: TopologyView['picture']): TopologyView {
  return prepareSigma(input.container, input.graph).draw(input, picture);
}

/** Transparent: what the drawing made while the layout runs draws (unseen) so that its GL pipelines are made. */
const UNSEEN = '#00000000';

/**
 * The fast drawing made in two steps: `prepareSigma` while the layout runs in its worker (the page's
 * thread is idle then): the graph without its points, sigma's WebGL contexts and programs, and a first,
 * unseen frame that has the software GL make its pipelines; then `draw` once the points are known. Made
 * in one go after the layout, the whole of it waited on the layout (decision 0991).
 */
export function prepareSigma(container: HTMLElement, graph: ViewInput['graph']) {
  // Lines at every zoom: one edge program (each costs the GPU process its buffers, shaders and a pass).
  const linesOnly = graph.edges.length > DETAIL_UP_TO;
  // Two unseen nodes and an edge of each type: sigma draws nothing for an empty graph.
  const warm = new MultiDirectedGraph<NodeAttributes, EdgeAttributes>();
  for (const [id, x] of [
    ['a', 0],
    ['b', 1],
  ] as const)
    warm.addNode(id, { x, y: x, size: 3, color: UNSEEN, label: '', kind: 'service', ref: '' });
  const edgePrograms = linesOnly ? LINES_ONLY : graph.edges.length > OVERVIEW_FROM ? OVERVIEW_EDGES : DETAIL_EDGES;
  for (const type of Object.keys(edgePrograms) as EdgeAttributes['type'][])
    warm.addDirectedEdge('a', 'b', { size: 1, color: UNSEEN, type, kind: 'connection' });

  let marks: Marks = { hidden: new Set(), match: new Set(), focus: false, distance: new Map(), path: new Set() };
  const renderer = new Sigma(warm, container, {
    zIndex: true,
    // Discs as GL points (one vertex each) rather than sigma's default instanced triangles: under software
    // WebGL, a drawing of 10,200 nodes took ~700 ms per frame with those and ~50 ms with points here.
    nodeProgramClasses: { circle: NodePointProgram },
    edgeProgramClasses: edgePrograms,
    labelFont: 'system-ui, sans-serif',
    labelSize: 12,
    labelRenderedSizeThreshold: 8,
    // While the view moves the picture is moved instead of drawn (sigma-moves.ts); with this setting,
    // sigma also draws again once a drag ends (and would leave edges and labels out of a frame drawn then).
    hideEdgesOnMove: true,
    hideLabelsOnMove: true,
    minCameraRatio: 0.01,
    maxCameraRatio: 4,
    // Called for every item at each refresh: nothing marked (most of the time) costs no copy.
    nodeReducer: (id, attributes): Partial<NodeDisplayData> => {
      if (!marked(marks)) return attributes;
      const shown: Partial<NodeDisplayData> = { ...attributes };
      if (marks.hidden.has(id)) shown.hidden = true;
      if (marks.match.has(id))
        Object.assign(shown, {
          highlighted: true,
          forceLabel: true,
          color: COLORS.match,
          size: attributes.size * 2,
          zIndex: 2,
        });
      if (marks.focus) {
        const d = marks.distance.get(id);
        if (d === undefined) Object.assign(shown, { color: COLORS.faded, label: null });
        // Labelled: the chosen service, and everything affected when that is few enough to read.
        else
          Object.assign(shown, {
            color: COLORS.distance[Math.min(d, 3)],
            size: attributes.size * (d === 0 ? 3 : 2),
            forceLabel: d === 0 || marks.distance.size <= 50,
            zIndex: 3,
          });
      }
      return shown;
    },
    edgeReducer: (id, attributes): Partial<EdgeDisplayData> => {
      if (!marked(marks)) return attributes;
      const shown: Partial<EdgeDisplayData> = { ...attributes };
      if (marks.hidden.has(id)) shown.hidden = true;
      if (marks.focus)
        Object.assign(
          shown,
          marks.path.has(id) ? { color: COLORS.origin, size: 3, zIndex: 2 } : { color: COLORS.faded },
        );
      return shown;
    },
  });
  // The graph, while sigma's first (unseen) frame is drawn by the GPU process.
  const g = new MultiDirectedGraph<NodeAttributes, EdgeAttributes>();
  for (const n of graph.nodes)
    g.addNode(n.id, {
      x: 0,
      y: 0,
      size: SIZE[n.kind],
      color: COLORS[n.kind].line,
      label: n.label,
      kind: n.kind,
      ref: n.ref,
    });
  for (const e of graph.edges) {
    // The arrow is drawn at the edge's target: b_to_a is drawn from b to a; undirected ones as lines.
    const [source, target] = e.direction === 'b_to_a' ? [e.target, e.source] : [e.source, e.target];
    const arrow = !linesOnly && (e.direction === 'a_to_b' || e.direction === 'b_to_a' || e.kind === 'link');
    g.addDirectedEdgeWithKey(e.id, source, target, {
      size: 1,
      color: EDGE_COLOR[e.kind],
      type: arrow ? 'arrow' : 'line',
      kind: e.kind,
    });
  }
  return {
    /** Draws the graph at these points (the layout's; sigma's y axis points up, the layouts' down). */
    draw({ positions, onChoose }: ViewInput, picture: TopologyView['picture']): TopologyView {
      g.forEachNode((id, attributes) => {
        const p = positions[id] ?? { x: 0, y: 0 };
        attributes.x = p.x;
        attributes.y = -p.y;
      });
      renderer.setGraph(g);
      renderer.on(
        'clickNode',
        ({ node }) => g.getNodeAttribute(node, 'kind') === 'service' && onChoose(g.getNodeAttribute(node, 'ref')),
      );
      renderer.on('clickStage', () => onChoose(''));
      const camera = renderer.getCamera();
      const view = moveAsPicture(renderer);
      const report = () => reportZoom(container, 1 / camera.ratio);
      let detailed = graph.edges.length <= OVERVIEW_FROM;
      let resting: ReturnType<typeof setTimeout> | undefined;
      const switchEdges = () => {
        if (view.moving()) return void (resting = setTimeout(switchEdges, REST_MS));
        if (detailed === camera.ratio < DETAIL_RATIO) return;
        detailed = camera.ratio < DETAIL_RATIO;
        renderer.setSetting('edgeProgramClasses', detailed ? DETAIL_EDGES : OVERVIEW_EDGES);
      };
      camera.on('updated', () => {
        report();
        if (graph.edges.length <= OVERVIEW_FROM || graph.edges.length > DETAIL_UP_TO) return;
        clearTimeout(resting);
        resting = setTimeout(switchEdges, REST_MS);
      });
      report();

      return {
        show(next) {
          // Nothing marked before or now (the first show, after the first frame): no redraw of every item.
          const unchanged = !marked(marks) && !marked(next);
          marks = next;
          // Every item read again through the reducers ({}: sigma's full refresh; without it, a render).
          if (!unchanged) renderer.refresh({});
        },
        zoomBy(factor) {
          factor > 1 ? camera.animatedZoom(factor) : camera.animatedUnzoom(1 / factor);
        },
        fit(ids) {
          if (!ids?.length) return void camera.animatedReset();
          // The camera works in the viewport's normalized coordinates (the whole graph spans about 0–1).
          const points = ids.map((id) => renderer.getNodeDisplayData(id)).filter((p) => !!p);
          const xs = points.map((p) => p.x);
          const ys = points.map((p) => p.y);
          const [x1, x2, y1, y2] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
          camera.animate({
            x: (x1 + x2) / 2,
            y: (y1 + y2) / 2,
            ratio: Math.max(0.05, Math.max(x2 - x1, y2 - y1) * 1.3),
          });
        },
        picture,
        camera: () => camera.getState(),
        setCamera: (state) => camera.setState(state as ReturnType<typeof camera.getState>),
        destroy: () => {
          clearTimeout(resting);
          delete container.dataset.zoom;
          renderer.kill();
        },
      };
    },
    kill: () => renderer.kill(),
  };
}
