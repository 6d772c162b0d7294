/** cytoscape-svg ships no types: the extension (registered with `cytoscape.use`). */
declare module 'cytoscape-svg' {
  const extension: (cy: unknown) => void;
  export default extension;
}
