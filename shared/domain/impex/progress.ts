import { issueTicket, pushToJob } from '#shared/progress';
import { actorAccount, type AppContext } from '#shared/context';
import { JOB_KIND, JOB_NOT_FOUND, memberRecordOf, recordByJob } from './records.ts';
import type { ImpexRecord } from './record-entity.ts';

/** Export and import progress over WebSockets (the tickets and connections: `#shared/progress`). */

/** POST /impex/progress-ticket {job_id}: a ticket to follow a job of a project the caller is a member of. */
export async function progressTicket(ctx: AppContext, input: { job_id: string }) {
  const userId = actorAccount(ctx).id;
  await memberRecordOf(input.job_id, JOB_KIND, userId, JOB_NOT_FOUND);
  return issueTicket(ctx, userId, input.job_id);
}

/** The progress source of export and import jobs (for a connection's sync): undefined for another kind of job. */
export async function impexProgressOf(jobId: string) {
  const record = await recordByJob(jobId);
  return record ? progressMessage(record) : undefined;
}

/** The progress message (also what the status endpoint's clients poll): `{type, job_id, status, pct, counts, seq}`. */
export const progressMessage = (r: ImpexRecord) => ({
  type: `${r.kind}.progress`,
  job_id: r.job_id,
  record_id: r.id,
  status: r.status,
  pct: r.progress.pct,
  counts: { done: r.progress.done, total: r.progress.total, ...(r.report ? { summary: r.report.summary } : {}) },
  seq: r.seq,
});

/** Sends a record's progress to every connection following its job. Never fails the job. */
export async function publishProgress(record: ImpexRecord, _ctx: AppContext): Promise<void> {
  await pushToJob(record.job_id, progressMessage(record));
}
