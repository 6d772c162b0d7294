import type { Positions } from './fast-layout';
import type { GraphEdge, GraphNode } from './graph';
import type { Marks } from './marks';

/** A drawing of the topology, by whichever renderer: what the screen asks of it. */
export interface TopologyView {
  show(marks: Marks): void;
  zoomBy(factor: number): void;
  /** Fits the given nodes (all when none) into view. */
  fit(ids?: string[]): void;
  /** True when the first view shows only part of the drawing (to keep its labels readable). */
  readonly partial?: boolean;
  /** The whole picture as a file. */
  picture(format: 'svg' | 'png'): Promise<Blob>;
  /** Where the view looks (pan and zoom), to carry over to a view drawn again of the same layout. */
  camera(): unknown;
  setCamera(state: unknown): void;
  destroy(): void;
}

export interface ViewInput {
  container: HTMLElement;
  graph: { nodes: GraphNode[]; edges: GraphEdge[] };
  positions: Positions;
  /** a service node was clicked (its id), or the background ('') */
  onChoose(serviceId: string): void;
  /** A node to start the view at (the chosen service), when the whole drawing cannot be shown readably. */
  start?: string;
}

/** Keeps `data-zoom` on the drawing's element: the view's scale, changed by every zoom (read by `npm run bench:web`: the drawing answers). */
export const reportZoom = (container: HTMLElement, zoom: number) => void (container.dataset.zoom = zoom.toPrecision(4));

/** The detailed drawing's label size at zoom 1 (px). */
export const LABEL_PX = 12;
/**
 * The smallest label the first view shows (px): a drawing that fits the frame only with smaller
 * labels opens at this size instead, at its start (or the chosen service); Fit shows all of it.
 */
export const READABLE_LABEL_PX = 10;

/** Colours shared by the views (and the legend's swatches in styles/topology.css). */
export const COLORS = {
  service: { fill: '#dbe9f6', line: '#1f4e79' },
  floor: { fill: '#eceff1', line: '#57606a' },
  network: { fill: '#e6f4ea', line: '#146c2e' },
  edge: '#6e7781',
  hosting: '#8c959f',
  attachment: '#3f9a5a',
  match: '#0b5fff',
  origin: '#a4161a',
  distance: ['#a4161a', '#f08c4a', '#f6c177', '#fbe3b5'],
  faded: '#e4e7eb',
} as const;
