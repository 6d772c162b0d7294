/**
 * Connections between services and floors, and the chains and hubs that group them. This index is
 * what the rest of the catalog sees of them; the files behind it import each other directly.
 */
export * from './limits-and-refusals.ts';
export { type ConnectionSpec, putConnectionSteps, putChainSteps, auditedConnection, chainShown } from './items.ts';
export { pairKey, END_PROBE, connectionsVersionStep } from './duplicates.ts';
export { createConnection, createConnectionBatch } from './create.ts';
export { listConnections, byConnectionOrder } from './list.ts';
export { updateConnection, updateChain } from './update.ts';
export { deleteConnection, deleteChain } from './delete.ts';
