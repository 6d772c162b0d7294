/** The audit context's public face: reading a project's audit log and the caller's account-level log. Entries are written by `#shared/audit` in each change's transaction. */
export { AUDIT_FORBIDDEN, auditEntryOut, readScope, readable, readAuditLog } from './log.ts';
export { accountAuditEntryOut, readAccountAuditLog } from './account-log.ts';
