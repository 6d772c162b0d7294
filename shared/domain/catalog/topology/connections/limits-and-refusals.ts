/** The limits of a connection batch and a chain, and the connections' refusals (SPEC's detail strings). */

/**
 * A batch is one transaction (DynamoDB: at most 100 items): 24 connections and their id lookups
 * (48), at most 48 distinct end checks, the chain and its lookup, the environment check = 99.
 */
export const MAX_BATCH_CONNECTIONS = 24;
/** A chain is patched and deleted in one transaction: its members plus the chain item must fit in 100. */
export const MAX_CHAIN_CONNECTIONS = 50;

export const CONNECTION_NOT_FOUND = 'Connection not found';
export const CHAIN_NOT_FOUND = 'Chain not found';
/** SPEC uses this wording (discovery); the same voice for every connection permission refusal. */
export const MISSING_MANAGE = 'Missing permission: connections.manage';
export const MISSING_VIEW = 'Missing permission: connections.view';
export const CHAIN_FULL = `Chain is full (max ${MAX_CHAIN_CONNECTIONS} connections)`;
export const DUPLICATE_CONNECTION = 'A connection between these two entities in this direction already exists';
