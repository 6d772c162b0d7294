/** The lifecycle context (above catalog): plan limits across an account's projects, downgrade with its grace window, archive and restore. */
export { ARCHIVABLE_KINDS, type ArchivableKind } from './selection.ts';
export { archiveSelection, markArchived } from './archive.ts';
export { unarchive } from './unarchive.ts';
export { archivedSummary, listArchived } from './archived-lists.ts';
export { overage, anyOver, type AccountUsage } from './usage.ts';
export { limitsStatus, overageCandidates } from './limits-status.ts';
export { downgradePreflight, confirmDowngrade } from './downgrade.ts';
export { sweepDeadlines } from './deadlines.ts';
export { PROJECT_RESTORE_ACTION, restoreProject, type RestoreProgress, type RestoreReport } from './project-restore.ts';
