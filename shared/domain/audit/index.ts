/** The audit context's public face (issue 18): reading a project's audit log. Entries are written by `#shared/audit` in each change's transaction. */
export * from './log';
