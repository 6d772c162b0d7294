/** The lifecycle context (above catalog): plan limits across an account's projects, downgrade with its grace window, archive and restore. */
export { ARCHIVABLE_KINDS, type ArchivableKind } from './selection';
export { archiveSelection, markArchived } from './archive';
export { unarchive } from './unarchive';
export { archivedSummary, listArchived } from './archived-lists';
export { overage, anyOver, type AccountUsage } from './usage';
export { limitsStatus, overageCandidates } from './limits-status';
export { downgradePreflight, confirmDowngrade } from './downgrade';
export { sweepDeadlines } from './deadlines';
export { PROJECT_RESTORE_ACTION, restoreProject, type RestoreProgress, type RestoreReport } from './project-restore';
