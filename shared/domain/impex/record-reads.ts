import { keys } from '#db/keys';
import { queryNewest } from '#db/query';
import { forbidden } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { accessToProject } from '#domain/tenancy';
import { impexRecordEntity, impexRecordView } from './record-entity.ts';
import { JOB_KIND, JOB_NOT_FOUND, memberRecordOf, NOT_A_MEMBER } from './records.ts';
import { asSeen } from './job-liveness.ts';

/** The record routes' reads: each record as readers see it (a stalled job's record failed: job-liveness.ts). */

/** GET /impex/history: a project's records, newest first, optionally one environment's; any member (else 403, as SPEC says). */
export async function importExportHistory(
  ctx: AppContext,
  input: { project_id: string; environment_id?: string; limit: number },
) {
  await accessToProject(input.project_id, actorAccount(ctx).id, { notFoundError: forbidden(NOT_A_MEMBER) });
  const items = await queryNewest(keys.projectPK(input.project_id), keys.impexRecordPrefix, {
    limit: input.limit,
    ...(input.environment_id ? { filter: 'environment_id = :env', values: { ':env': input.environment_id } } : {}),
  });
  return Promise.all(items.map(async (i) => impexRecordView.project(await asSeen(impexRecordEntity.decode(i), ctx))));
}

/**
 * GET /impex/status/{job_id}: a job's record, for a member of its project (else 404 'Job not found').
 * The caller is signed in by the pipeline, from the Bearer header, the cookie, or the `token` query
 * parameter of a client that cannot send headers (a progress page).
 */
export async function jobStatus(ctx: AppContext, input: { job_id: string }) {
  return impexRecordView.project(
    await asSeen(await memberRecordOf(input.job_id, JOB_KIND, actorAccount(ctx).id, JOB_NOT_FOUND), ctx),
  );
}
