import cytoscape from 'cytoscape';
import svgExport from 'cytoscape-svg';
import type { Marks } from './marks';
import { COLORS, LABEL_PX, READABLE_LABEL_PX, reportZoom, type TopologyView, type ViewInput } from './view';

type Core = cytoscape.Core;
type StylesheetJson = cytoscape.StylesheetJson;

cytoscape.use(svgExport);

/*
 * Cytoscape adds a <style> element (`.__________cytoscape_container { position: relative }`) unless an
 * element with its id exists: the CSP refuses inline styles, so the rule is in styles/topology.css and this
 * marker tells Cytoscape it is there.
 */
if (!document.getElementById('__________cytoscape_stylesheet')) {
  const marker = document.createElement('meta');
  marker.id = '__________cytoscape_stylesheet';
  marker.name = 'cytoscape-container-style';
  marker.content = 'in styles/topology.css';
  document.head.append(marker);
}

/** Above this many elements the canvas drops edges while panning and draws straight edges. */
const BIG = 1500;
const MARK_CLASSES = 'hidden faded match origin d1 d2 d3 path';

/**
 * Big drawings start without labels and with plain edges (Cytoscape's "haystack": no arrows, solid);
 * zoomed in, the nodes in view get their labels and the edges between them their arrows and dashes
 * (`detail`). Dashed or dotted lines over a whole drawing cost the most of all: the canvas rasterizes
 * every dash, even when the drawing is zoomed out to a fraction of a pixel per dash.
 */
function style(big: boolean): StylesheetJson {
  const label = {
    label: 'data(label)',
    'font-size': LABEL_PX,
    'font-family': 'system-ui, sans-serif',
    'text-valign': 'center',
    'text-halign': 'center',
    color: '#1b1f24',
    'min-zoomed-font-size': 8,
  } as const;
  const detail = big ? '.detail' : '';
  const [, d1, d2, d3] = COLORS.distance;
  return [
    {
      selector: 'node',
      style: {
        ...(big ? {} : label),
        width: 'data(width)',
        height: 'data(height)',
        shape: 'round-rectangle',
        'background-color': COLORS.service.fill,
        'border-width': 1,
        'border-color': COLORS.service.line,
      },
    },
    ...(big ? [{ selector: 'node.detail', style: label }] : []),
    {
      selector: 'node[kind = "floor"]',
      style: { shape: 'rectangle', 'background-color': COLORS.floor.fill, 'border-color': COLORS.floor.line },
    },
    {
      selector: 'node[kind = "network"]',
      style: { shape: 'barrel', 'background-color': COLORS.network.fill, 'border-color': COLORS.network.line },
    },
    {
      selector: 'edge',
      style: {
        width: 1.5,
        'line-color': COLORS.edge,
        'target-arrow-color': COLORS.edge,
        'source-arrow-color': COLORS.edge,
        'curve-style': big ? 'haystack' : 'bezier',
        'arrow-scale': 1.1,
      },
    },
    ...(big ? [{ selector: 'edge.detail', style: { 'curve-style': 'straight' as const } }] : []),
    { selector: `edge${detail}[direction = "a_to_b"]`, style: { 'target-arrow-shape': 'triangle' } },
    { selector: `edge${detail}[direction = "b_to_a"]`, style: { 'source-arrow-shape': 'triangle' } },
    {
      selector: `edge${detail}[direction = "both"]`,
      style: { 'source-arrow-shape': 'triangle', 'target-arrow-shape': 'triangle' },
    },
    { selector: `edge${detail}[kind = "link"]`, style: { 'line-style': 'dotted', 'target-arrow-shape': 'vee' } },
    { selector: 'edge[kind = "hosting"]', style: { 'line-color': COLORS.hosting } },
    { selector: `edge${detail}[kind = "hosting"]`, style: { 'line-style': 'dashed' } },
    { selector: 'edge[kind = "attachment"]', style: { 'line-color': COLORS.attachment } },
    { selector: `edge${detail}[kind = "attachment"]`, style: { 'line-style': 'dotted' } },
    { selector: '.hidden', style: { display: 'none' } },
    { selector: '.faded', style: { opacity: 0.2 } },
    { selector: 'node.match', style: { 'border-width': 4, 'border-color': COLORS.match } },
    {
      selector: 'node.origin',
      style: { 'background-color': COLORS.origin, 'border-color': '#5c0b0e', color: '#ffffff', 'border-width': 3 },
    },
    { selector: 'node.d1', style: { 'background-color': d1, 'border-color': '#8a3b0b', 'border-width': 2 } },
    { selector: 'node.d2', style: { 'background-color': d2, 'border-color': '#8a5a0b', 'border-width': 2 } },
    { selector: 'node.d3', style: { 'background-color': d3, 'border-color': '#8a6d0b', 'border-width': 2 } },
    {
      selector: 'edge.path',
      style: {
        width: 4,
        'line-color': COLORS.origin,
        'target-arrow-color': COLORS.origin,
        'source-arrow-color': COLORS.origin,
        'z-index': 10,
      },
    },
  ];
}

/** Zoomed in on a big drawing: labels on the nodes in view, arrows on the edges between them (and off again elsewhere). */
function showDetailInView(g: Core) {
  let detailed = g.collection();
  let timer = 0;
  const update = () => {
    const { x1, x2, y1, y2 } = g.extent();
    const next =
      g.zoom() < 0.45
        ? g.collection()
        : g.nodes().filter((n) => {
            const p = n.position();
            return p.x >= x1 && p.x <= x2 && p.y >= y1 && p.y <= y2;
          });
    const withEdges = next.length > 150 ? g.collection() : next.union(next.edgesWith(next));
    g.batch(() => {
      detailed.difference(withEdges).removeClass('detail');
      withEdges.difference(detailed).addClass('detail');
    });
    detailed = withEdges;
  };
  g.on('viewport', () => {
    clearTimeout(timer);
    timer = window.setTimeout(update, 120);
  });
  update();
}

/**
 * The first view: the whole drawing when its labels are then at least READABLE_LABEL_PX; otherwise
 * that size, at the chosen service, or else where the frame holds the most items (ties: the one
 * furthest left, then up: where a layered drawing begins), centred along an axis the drawing fits
 * in. Returns whether only part is in view.
 */
function firstView(g: Core, start?: string): boolean {
  const padding = 30;
  g.fit(undefined, padding);
  const readable = READABLE_LABEL_PX / LABEL_PX;
  if (g.zoom() >= readable || !g.nodes().length) return false;
  g.zoom(readable);
  const chosen = start ? g.getElementById(start) : undefined;
  if (chosen?.nonempty()) {
    g.center(chosen);
    return true;
  }
  // The frame in the drawing's units; each node's top left is a candidate for its top left (quadratic: detailed drawings are small).
  const [w, h] = [(g.width() - 2 * padding) / readable, (g.height() - 2 * padding) / readable];
  const nodes = g
    .nodes()
    .map((n) => ({ ...n.position(), left: n.position().x - n.width() / 2, top: n.position().y - n.height() / 2 }));
  let best = { count: -1, x: 0, y: 0 };
  for (const a of nodes) {
    let count = 0;
    for (const n of nodes) if (n.x >= a.left && n.x <= a.left + w && n.y >= a.top && n.y <= a.top + h) count++;
    if (count > best.count || (count === best.count && (a.left < best.x || (a.left === best.x && a.top < best.y))))
      best = { count, x: a.left, y: a.top };
  }
  const box = g.elements().boundingBox();
  const along = (frame: number, from: number, size: number, anchor: number) =>
    size * readable <= frame - 2 * padding
      ? (frame - size * readable) / 2 - from * readable
      : padding - anchor * readable;
  g.pan({ x: along(g.width(), box.x1, box.w, best.x), y: along(g.height(), box.y1, box.h, best.y) });
  return true;
}

/** The labels' size on screen (px), as `data-label-px` on the drawing's element, kept as the view zooms. */
function reportLabelSize(g: Core, container: HTMLElement) {
  const report = () => {
    container.dataset.labelPx = (LABEL_PX * g.zoom()).toFixed(1);
    reportZoom(container, g.zoom());
  };
  g.on('zoom', report);
  report();
}

/**
 * The detailed drawing (Cytoscape.js on a canvas): shapes per kind, dashed hosting and dotted
 * attachment edges, curved edges with arrows, labels; exports SVG and PNG. `onDrawn` is called once,
 * at its first frame.
 */
export function cytoscapeView(
  { container, graph, positions, onChoose, start }: ViewInput,
  onDrawn: () => void = () => {},
): TopologyView {
  const big = graph.nodes.length + graph.edges.length > BIG;
  const g = cytoscape({
    container,
    elements: [
      ...graph.nodes.map((n) => ({
        group: 'nodes' as const,
        data: { ...n },
        position: positions[n.id] ?? { x: 0, y: 0 },
      })),
      ...graph.edges.map((e) => ({ group: 'edges' as const, data: { ...e } })),
    ],
    style: style(big),
    layout: { name: 'preset', fit: false },
    minZoom: 0.02,
    maxZoom: 4,
    wheelSensitivity: 0.3,
    boxSelectionEnabled: false,
    autoungrabify: big,
    hideEdgesOnViewport: big,
    textureOnViewport: big,
    pixelRatio: big ? 1 : 'auto',
  });
  const partial = firstView(g, start);
  reportLabelSize(g, container);
  if (big) showDetailInView(g);
  g.on('tap', 'node[kind = "service"]', (e) => onChoose(e.target.data('ref')));
  g.on('tap', (e) => e.target === g && onChoose(''));
  g.one('render', onDrawn);
  return {
    partial,
    show(marks: Marks) {
      // Only what changes is restyled: on 9,000 elements a blanket class change costs seconds.
      const marked = g.elements('.hidden, .faded, .match, .origin, .d1, .d2, .d3, .path');
      if (!marked.length && !marks.hidden.size && !marks.match.size && !marks.focus) return;
      const byId = (id: string) => g.getElementById(id);
      g.batch(() => {
        marked.removeClass(MARK_CLASSES);
        for (const id of marks.hidden) byId(id).addClass('hidden');
        for (const id of marks.match) byId(id).addClass('match');
        if (!marks.focus) return;
        g.elements().addClass('faded');
        for (const [id, d] of marks.distance)
          byId(id)
            .removeClass('faded')
            .addClass(d === 0 ? 'origin' : `d${Math.min(d, 3)}`);
        for (const id of marks.path) byId(id).removeClass('faded').addClass('path');
      });
    },
    zoomBy(factor) {
      g.zoom({ level: g.zoom() * factor, renderedPosition: { x: g.width() / 2, y: g.height() / 2 } });
    },
    fit(ids) {
      const wanted = new Set(ids);
      g.fit(ids?.length ? g.nodes().filter((n) => wanted.has(n.id())) : undefined, ids?.length ? 40 : 30);
    },
    async picture(format) {
      return format === 'svg'
        ? new Blob([g.svg({ full: true, bg: '#ffffff' })], { type: 'image/svg+xml' })
        : g.png({ full: true, bg: '#ffffff', output: 'blob', maxWidth: 8000, maxHeight: 8000 });
    },
    camera: () => ({ zoom: g.zoom(), pan: g.pan() }),
    setCamera: (state) => void g.viewport(state as { zoom: number; pan: { x: number; y: number } }),
    destroy: () => {
      delete container.dataset.labelPx;
      delete container.dataset.zoom;
      g.destroy();
    },
  };
}

/**
 * The picture of a drawing made by another view (the WebGL one has no SVG): the same items, positions
 * and marks drawn by Cytoscape in an element out of sight, exported, then dropped.
 */
export async function pictureOf(
  input: Omit<ViewInput, 'container' | 'onChoose'>,
  marks: Marks,
  format: 'svg' | 'png',
): Promise<Blob> {
  const container = document.createElement('div');
  container.className = 'cy-offscreen';
  container.setAttribute('aria-hidden', 'true');
  document.body.append(container);
  const view = cytoscapeView({ ...input, container, onChoose: () => {} });
  try {
    view.show(marks);
    return await view.picture(format);
  } finally {
    view.destroy();
    container.remove();
  }
}
