import * as z from 'zod';
import { lazySchema } from '#shared/lazy-schema';
import { putNewStep } from '#db/steps';
import { lookupStep } from '#db/lookup';
import { transact } from '#db/transact';
import { unprocessable } from '#shared/errors';
import { enqueue } from '#shared/queue';
import { errorFields, log } from '#shared/log';
import { documentSize, documentUploadUrl, putDocument } from '#shared/storage';
import { actorAccount, type AppContext } from '#shared/context';
import { accessInEnvironment } from '#domain/tenancy';
import { impexRecordEntity, type ImpexRecord } from './record-entity.ts';
import type { UploadedDocument } from './types.ts';
import { releaseImportLock, takeImportLock } from './import-lock.ts';
import { finishRecord, JOB_KIND, RECORD_KIND, recordKey } from './records.ts';

/** Starting an export or an import: who may, the upload URL of a big document, the record written and its job queued. */

/** The jobs-queue message of an export or an import: queued when its record is written (below), run by `runImpexJob`. */
export const impexJobMessage = lazySchema(() =>
  z.object({ kind: z.enum(['export', 'import']), project_id: z.string().min(1), record_id: z.string().min(1) }),
);
export type ImpexJobMessage = z.infer<ReturnType<typeof impexJobMessage>>;

export const NOT_AUTHORIZED_FOR_ENVIRONMENT = 'Not authorized for this environment';

/**
 * Who may export or import an environment (SPEC): a project member (else 404 'Project not found'),
 * the environment in the project (else 400), then `env.export` / `env.import` there (else 403 'Not
 * authorized for this environment'; what grants them is in shared/auth/permissions.ts).
 */
async function authorize(ctx: AppContext, kind: ImpexRecord['kind'], projectId: string, envId: string) {
  const userId = actorAccount(ctx).id;
  const { access } = await accessInEnvironment(projectId, userId, envId);
  access.require(kind === 'export' ? 'env.export' : 'env.import', NOT_AUTHORIZED_FOR_ENVIRONMENT, envId);
  return userId;
}

/** Writes the record (with lookups by record id and job id) and queues its job; a job that cannot be queued fails its record. */
async function start(ctx: AppContext, record: ImpexRecord) {
  const key = recordKey(record);
  await transact([
    putNewStep(impexRecordEntity.encode(key, record)),
    lookupStep(record.id, record.project_id, key, RECORD_KIND),
    lookupStep(record.job_id, record.project_id, key, JOB_KIND),
  ]);
  try {
    await enqueue('jobs', {
      kind: record.kind,
      project_id: record.project_id,
      record_id: record.id,
    } satisfies ImpexJobMessage);
  } catch (err) {
    log.error('impex job not queued', { record_id: record.id, ...errorFields(err) });
    await finishRecord(record, { status: 'failed', error: 'The job could not be queued. Please try again.' }, ctx);
    return { status: 'failed' as const, job_id: record.job_id, record_id: record.id };
  }
  return { status: 'queued' as const, job_id: record.job_id, record_id: record.id };
}

function newRecord(
  ctx: AppContext,
  kind: ImpexRecord['kind'],
  userId: string,
  input: { project_id: string; environment_id: string },
  extra: Partial<ImpexRecord> = {},
): ImpexRecord {
  const now = ctx.clock.now().toISOString();
  return impexRecordEntity.create({
    id: ctx.ids.newId(),
    job_id: ctx.ids.newId(),
    kind,
    status: 'queued',
    project_id: input.project_id,
    environment_id: input.environment_id,
    created_by: userId,
    created_at: now,
    updated_at: now,
    ...extra,
  });
}

/** POST /impex/export: 202 {status:'queued', job_id, record_id}; the jobs worker writes the document. */
export async function startExport(ctx: AppContext, input: { project_id: string; environment_id: string }) {
  const userId = await authorize(ctx, 'export', input.project_id, input.environment_id);
  return start(ctx, newRecord(ctx, 'export', userId, input));
}

/** Where an import's document is kept: under its project, by the record's id or the upload's. */
const importKey = (projectId: string, id: string) => `imports/${projectId}/${id}`;
/** How long an upload URL takes a document. */
const UPLOAD_SECONDS = 15 * 60;
export const NO_UPLOAD = 'No document was uploaded for this upload_id: PUT it to the upload URL first';

/**
 * POST /impex/upload-url: for a document too big for a request, a presigned PUT of
 * exactly `size` bytes of `content_type` into the project's imports, valid 15 minutes; then
 * POST /impex/import with its `upload_id`. The caller must be allowed to import (the same rule).
 */
export async function importUploadUrl(
  ctx: AppContext,
  input: { project_id: string; environment_id: string; size: number; content_type: string },
) {
  await authorize(ctx, 'import', input.project_id, input.environment_id);
  const uploadId = ctx.ids.newId();
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + UPLOAD_SECONDS * 1000);
  const url = await documentUploadUrl(
    importKey(input.project_id, uploadId),
    now,
    UPLOAD_SECONDS,
    input.size,
    input.content_type,
  );
  return {
    upload_id: uploadId,
    method: 'PUT' as const,
    url,
    headers: { 'content-type': input.content_type },
    expires_at: expiresAt.toISOString(),
  };
}

/**
 * POST /impex/import: the document comes as the multipart file (kept in the bucket first) or was
 * put through an upload URL of this project (`upload_id`); then the record and its job.
 */
export async function startImport(
  ctx: AppContext,
  input: {
    project_id: string;
    environment_id: string;
    file?: UploadedDocument;
    upload_id?: string;
    filename?: string;
    dry_run?: boolean;
    plan_fingerprint?: string;
    prune?: boolean;
  },
) {
  const userId = await authorize(ctx, 'import', input.project_id, input.environment_id);
  const record = newRecord(ctx, 'import', userId, input, {
    filename: input.file?.filename || input.filename || null,
    dry_run: input.dry_run ?? false,
    plan_fingerprint: input.plan_fingerprint ?? null,
    prune: input.prune ?? false,
  });
  if (record.dry_run) return startImportOf(ctx, record, input);
  // An import that writes holds the environment's lock from here to its job's end (import-lock.ts).
  // Taken inside the try: a take that failed after it took effect (an outage) lets its lock go too.
  try {
    await takeImportLock(record.project_id, record.environment_id, userId, record.job_id, ctx.clock.now());
    const started = await startImportOf(ctx, record, input);
    if (started.status === 'failed') await releaseImportLock(record.project_id, record.environment_id, record.job_id);
    return started;
  } catch (err) {
    await releaseImportLock(record.project_id, record.environment_id, record.job_id);
    throw err;
  }
}

/** Keeps the document (the multipart file, or checks the upload is there), then writes the record and queues its job. */
async function startImportOf(
  ctx: AppContext,
  record: ImpexRecord,
  input: { file?: UploadedDocument; upload_id?: string },
) {
  if (input.upload_id) {
    // The key carries the project: another project's upload is simply not there.
    record.document_key = importKey(record.project_id, input.upload_id);
    const size = await documentSize(record.document_key);
    if (size === undefined) throw unprocessable([{ loc: ['body', 'upload_id'], msg: NO_UPLOAD, type: 'value_error' }]);
  } else {
    record.document_key = importKey(record.project_id, record.id);
    await putDocument(record.document_key, input.file!.text, input.file!.content_type || 'application/yaml');
  }
  return start(ctx, record);
}
