/**
 * Import: plan (read the target environment once, match every entity of the document by name,
 * resolve the references, check the service limit for the whole import; write nothing), then
 * apply (chunked transactions built with the catalog's and tenancy's own step builders, the
 * service counters moved with their limit in the same transactions).
 *
 * Matching: groups, networks and services by name, subgroups by name within their group, floors
 * by hostname, all ignoring case (the name claims' rule). A match whose stored state differs is
 * updated (only the fields that differ); otherwise it is unchanged. An import never deletes: what
 * the environment has beyond the document stays. Links are created when the pair is not linked yet.
 * A connection matches the one joining the same ends in the same direction (the API's duplicate
 * rule; its name is then updated); a chain or hub matches the chain its matched members are in.
 */

export { planImport, type ImportPlan } from './plan';
export { applyImport, undoInterruptedImport } from './apply';
export type { ImportAction, ImportItem, ImportReport } from './report';
export type { ImportAudit } from './unit-writes';
