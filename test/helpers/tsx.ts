/**
 * Node's arguments that run a TypeScript entry point in one process, as `npm start` does: tsx's own command
 * would start a second Node for it (some 0.1 CPU-s a start, where the suite starts dozens).
 */
export const TSX_IMPORT = ['--import', 'tsx'];
