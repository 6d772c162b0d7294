/**
 * Connections between services and floors, and the chains and hubs that group them. This index is
 * what the rest of the catalog sees of them; the files behind it import each other directly.
 */
export * from './limits-and-refusals';
export { type ConnectionSpec, putConnectionSteps, putChainSteps, auditedConnection, chainShown } from './items';
export { pairKey, END_PROBE, connectionsVersionStep } from './duplicates';
export { createConnection, createConnectionBatch } from './create';
export { listConnections, byConnectionOrder } from './list';
export { updateConnection, updateChain } from './update';
export { deleteConnection, deleteChain } from './delete';
