import 'cytoscape';

/** The method cytoscape-svg adds to a graph. */
declare module 'cytoscape' {
  interface Core {
    svg(options?: { full?: boolean; scale?: number; bg?: string }): string;
  }
}
