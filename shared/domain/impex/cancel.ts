import { conflict, forbidden } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { impexRecordView, type ImpexRecord } from './record-entity.ts';
import { finishRecord, isFinished, JOB_KIND, JOB_NOT_FOUND, memberRecordAccess, updateRecord } from './records.ts';
import { releaseImportLock } from './import-lock.ts';
import { publishProgress } from './progress.ts';
import { asSeen } from './job-liveness.ts';

export const CANCEL_NOT_ALLOWED = 'Only who started the job or a project owner can cancel it';
export const jobFinished = (status: string) => `The job has finished already (${status}): there is nothing to cancel`;
export const EXPORT_RUNNING = 'A running export cannot be cancelled: it finishes in moments';

const inStatus = (status: ImpexRecord['status']) => ({
  expression: '#st = :only',
  names: { '#st': 'status' },
  values: { ':only': status },
});

/**
 * POST /impex/cancel/{job_id}, by the job's starter or a project owner (other members 403,
 * non-members 404 as for its status): a queued job is cancelled at once (its message finds it finished;
 * an import's lock is let go); a running import is asked to stop and does so at its next chunk
 * boundary, undoing the chunk in flight, then its record says `cancelled` (jobs.ts). A finished job is 409.
 * Answers the record as it is now (202: a running import's cancel completes later).
 */
export async function cancelJob(ctx: AppContext, input: { job_id: string }) {
  const userId = actorAccount(ctx).id;
  const { record: read, access } = await memberRecordAccess(input.job_id, JOB_KIND, userId, JOB_NOT_FOUND);
  if (read.created_by !== userId && !access.can('jobs.cancel')) throw forbidden(CANCEL_NOT_ALLOWED);
  const record = await asSeen(read, ctx);
  if (isFinished(record)) throw conflict(jobFinished(record.status));
  if (record.status === 'queued') {
    const cancelled = await finishRecord(
      record,
      { status: 'cancelled', cancel_requested_by: userId },
      ctx,
      inStatus('queued'),
    );
    if (cancelled) {
      if (record.kind === 'import' && !record.dry_run)
        await releaseImportLock(record.project_id, record.environment_id, record.job_id);
      await publishProgress(cancelled, ctx);
      return impexRecordView.project(cancelled);
    }
    // It started meanwhile: asked to stop as a running job.
  }
  if (record.kind === 'export') throw conflict(EXPORT_RUNNING);
  const asked = await updateRecord(record, { cancel_requested_by: userId }, ctx, inStatus('running'));
  // Finished meanwhile.
  if (!asked) throw conflict(jobFinished('finished'));
  return impexRecordView.project(asked);
}
