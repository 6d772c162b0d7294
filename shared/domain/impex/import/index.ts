/**
 * Import: plan (read the target environment once, match every entity of the document by name,
 * resolve the references, check the service limit for the whole import; write nothing), then
 * apply (chunked transactions built with the catalog's and tenancy's own step builders, the
 * service counters moved with their limit in the same transactions).
 *
 * Matching: groups, networks and services by name, subgroups by name within their group, floors
 * by hostname, all ignoring case (the name claims' rule). A match whose stored state differs is
 * updated (only the fields that differ); otherwise it is unchanged. What the environment has beyond
 * the document is listed (extras.ts) and stays, unless the import prunes: then it is deleted (prune.ts). Links are created when the pair is not linked yet.
 * A connection matches the one joining the same two ends (in the same direction if there is one,
 * else another of the pair: its direction and name are then updated in place); a chain or hub
 * matches the chain its matched members are in. A plan carries the fingerprint of the environment it
 * read (fingerprint.ts); an import of a saved plan writes nothing when the environment's differs.
 * An import that writes runs holding the environment's lock (../import-lock.ts).
 */

export { planImport } from './plan.ts';
export { applyImport, DEFINITIONS_CHANGED, undoInterruptedImport } from './apply.ts';
export type { ImportReport } from './report.ts';
export { extrasOf } from './extras.ts';
export { pruneInto } from './prune.ts';
