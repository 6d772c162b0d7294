import * as z from 'zod';
import { lazySchema } from '#shared/lazy-schema';
import { keys } from '#db/keys';
import { getItem } from '#db/items';
import { locate, lookupStep } from '#db/lookup';
import { putNewStep } from '#db/steps';
import type { Condition } from '#db/condition';
import { moveOnWhileUnfinished, moveOnWhileUnfinishedStep } from '#db/sequence';
import { concurrentChange, transact, type TransactStep } from '#db/transact';
import { isRefusal, notFound, unprocessable } from '#shared/errors';
import { enqueue } from '#shared/queue';
import { errorFields, log } from '#shared/log';
import { documentDownloadUrl, documentSize, documentUploadUrl, putDocument } from '#shared/storage';
import { actorAccount, type AppContext } from '#shared/context';
import { accessInEnvironment, accessToItem } from '#domain/tenancy';
import { impexRecordEntity, type ImpexRecord } from './record-entity';
import { verifyDownloadLink } from './links';
import type { UploadedDocument } from './types';
import { releaseImportLock, takeImportLock } from './import-lock';

/** The jobs-queue message of an export or an import: queued when its record is written (below), run by `runImpexJob`. */
export const impexJobMessage = lazySchema(() =>
  z.object({ kind: z.enum(['export', 'import']), project_id: z.string().min(1), record_id: z.string().min(1) }),
);
export type ImpexJobMessage = z.infer<ReturnType<typeof impexJobMessage>>;

export const NOT_AUTHORIZED_FOR_ENVIRONMENT = 'Not authorized for this environment';
export const NOT_A_MEMBER = 'Not a member of this project';
export const RECORD_NOT_FOUND = 'Record not found';
export const JOB_NOT_FOUND = 'Job not found';
export const RECORD_KIND = 'impex_record';
export const JOB_KIND = 'impex_job';

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

const recordKey = (r: Pick<ImpexRecord, 'project_id' | 'created_at' | 'id'>) =>
  keys.impexRecord(r.project_id, r.created_at, r.id);

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

/** A record by bare id (record or job id), for a member of its project; anything else is `notFoundError`. */
export async function memberRecordOf(id: string, kind: string, userId: string, detail: string): Promise<ImpexRecord> {
  return (await memberRecordAccess(id, kind, userId, detail)).record;
}

/** As `memberRecordOf`, with the caller's access to the record's project. */
export async function memberRecordAccess(id: string, kind: string, userId: string, detail: string) {
  const { item, access } = await accessToItem<ImpexRecord>({
    kind,
    id,
    userId,
    scope: 'project',
    notFound: notFound(detail),
  });
  return { record: impexRecordEntity.decode(item), access };
}

/**
 * GET /impex/download/{record_id}?exp=&sig=: the export document. The link is checked first (a
 * signature that does not match, 403; a genuine one past its expiry, 410 'Link expired'), then the
 * caller must be a member of the record's project.
 */
/** How long a presigned URL minted for a download lives at most: each visit of the link mints a fresh one. */
const PRESIGNED_SECONDS = 15 * 60;

/**
 * GET /impex/download/{record_id}?exp&sig: the signed link is the credential, as a presigned URL is:
 * checked, it answers the export's presigned S3 URL, valid for what is left of the link's
 * life (at most 15 minutes: the link mints a new one each time, and a role's credentials would not
 * keep a days-long URL alive). The bytes never pass through the API.
 */
export async function downloadExport(
  ctx: AppContext,
  input: { record_id: string; exp: number; sig: string },
): Promise<string> {
  const now = ctx.clock.now();
  await verifyDownloadLink(input.record_id, input.exp, input.sig, now);
  const record = await recordById(input.record_id);
  if (record?.kind !== 'export' || record.status !== 'succeeded' || !record.document_key)
    throw notFound(RECORD_NOT_FOUND);
  const left = input.exp - Math.floor(now.getTime() / 1000);
  return documentDownloadUrl(
    record.document_key,
    now,
    Math.max(1, Math.min(left, PRESIGNED_SECONDS)),
    `environment-${record.environment_id}.yaml`,
  );
}

/** The record, or undefined when there is none (a job whose record is gone is done, not retried). */
async function recordVia(id: string, kind: string): Promise<ImpexRecord | undefined> {
  const located = await locate(id, kind, notFound(RECORD_NOT_FOUND)).catch((err) =>
    isRefusal(err, 'not_found') ? undefined : Promise.reject(err),
  );
  if (!located) return undefined;
  const { key } = located;
  const raw = await getItem(key);
  return raw ? impexRecordEntity.decode(raw) : undefined;
}
/** A record by its id (the worker) or its job's id (progress). */
export const recordById = (recordId: string) => recordVia(recordId, RECORD_KIND);
export const recordByJob = (jobId: string) => recordVia(jobId, JOB_KIND);

/**
 * Moves a record on (status, progress, result) while it is not finished (and `also` holds); `seq`
 * moves with every change (#db/sequence). Answers the record as written, or undefined when it had finished already.
 */
export async function updateRecord(
  record: ImpexRecord,
  fields: Partial<ImpexRecord>,
  ctx: AppContext,
  also?: Condition,
): Promise<ImpexRecord | undefined> {
  const written = await moveOnWhileUnfinished(
    recordKey(record),
    { ...fields, updated_at: ctx.clock.now().toISOString() },
    also,
  );
  return written && impexRecordEntity.decode(written);
}

/** How a record ends. */
export type FinalStatus = 'succeeded' | 'failed' | 'cancelled';
export const isFinished = (r: Pick<ImpexRecord, 'status'>) => r.status !== 'queued' && r.status !== 'running';

export const finishRecord = (
  record: ImpexRecord,
  fields: Partial<ImpexRecord> & { status: FinalStatus },
  ctx: AppContext,
  also?: Condition,
) => updateRecord(record, { ...fields, finished_at: ctx.clock.now().toISOString() }, ctx, also);

/**
 * Finishes a record together with `steps` in one transaction (an import's audit entry: it exists
 * exactly when the import's result is recorded). Answers the record as written, or undefined when it
 * had finished already (then nothing is written).
 */
export async function finishRecordWith(
  record: ImpexRecord,
  fields: Partial<ImpexRecord> & { status: FinalStatus },
  ctx: AppContext,
  steps: TransactStep[],
): Promise<ImpexRecord | undefined> {
  const now = ctx.clock.now().toISOString();
  const all = { ...fields, finished_at: now, updated_at: now };
  const finished = concurrentChange();
  try {
    await transact([moveOnWhileUnfinishedStep(recordKey(record), all, finished), ...steps]);
  } catch (err) {
    if (err === finished) return undefined;
    throw err;
  }
  return { ...record, ...all, seq: record.seq + 1 };
}
