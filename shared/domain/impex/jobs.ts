import { getDocument, uploadDocument } from '#shared/storage';
import { errorFields, log } from '#shared/log';
import type { AppContext } from '#shared/context';
import { exportParts } from './export.ts';
import { parseDocument, yamlText } from './yaml.ts';
import {
  applyImport,
  DEFINITIONS_CHANGED,
  extrasOf,
  planImport,
  pruneInto,
  undoInterruptedImport,
} from './import/index.ts';
import { onContention } from '#db/retry';
import { readEnvironment } from './read.ts';
import { finishRecord, finishRecordWith, isFinished, recordById, updateRecord } from './records.ts';
import { failForGood, keepAlive, lastWords, type JobLife } from './job-liveness.ts';
import { accountActor, auditStep, SERVICE_ACTOR } from '#shared/audit';
import { getAccount } from '#domain/identity';
import { signedDownloadUrl } from './links.ts';
import { publishProgress } from './progress.ts';
import type { ImpexRecord } from './record-entity.ts';
import { kept } from './report-kept.ts';
import type { EnvironmentDocument } from './document.ts';
import { metric } from '#shared/metrics';
import { goesBack, progressAt } from '#shared/job-progress';
import { releaseImportLock, takeImportLock, whileLocked } from './import-lock.ts';
import { DomainError, isRefusal } from '#shared/errors';

const HOUR_MS = 3600 * 1000;

/**
 * An import's progress is written when its percentage moves, or at least this often: a record
 * write (and a push) after each of a big import's thousands of transactions would double its
 * round trips.
 */
const PROGRESS_EVERY_MS = 1000;

/** Writes a change and tells the job's progress subscribers (a lost message is fine: the record is the truth). */
async function step(
  record: ImpexRecord,
  change: Partial<ImpexRecord>,
  ctx: AppContext,
): Promise<ImpexRecord | undefined> {
  const fields = change.report ? { ...change, report: kept(change.report) } : change;
  const { status } = fields;
  const final = status === 'succeeded' || status === 'failed' || status === 'cancelled';
  const next = final ? await finishRecord(record, { ...fields, status }, ctx) : await updateRecord(record, fields, ctx);
  if (next && final && record.kind === 'import')
    metric(status === 'succeeded' ? 'ImportsSucceeded' : status === 'failed' ? 'ImportsFailed' : 'ImportsCancelled');
  if (next) await publishProgress(next, ctx);
  return next;
}

/**
 * The jobs worker's export and import (idempotent: a finished record is left alone; an interrupted
 * import is planned and applied again, which converges). Errors are thrown for the queue to retry;
 * on the last attempt whatever failed (reading the record included) fails the record, so a message
 * that goes to the dead-letter queue never leaves it queued or running (job-liveness.ts).
 */
export async function runImpexJob(ctx: AppContext, input: { record_id: string; lastAttempt: boolean }): Promise<void> {
  let record: ImpexRecord | undefined;
  try {
    const found = await recordById(input.record_id);
    if (!found || isFinished(found)) return;
    record = found; // what the last attempt fails, should the step below throw
    record = (await step(found, { status: 'running', heartbeat_at: ctx.clock.now().toISOString() }, ctx)) ?? found;
    if (isFinished(record)) return;
    const life = keepAlive(record, ctx);
    try {
      if (record.kind === 'export') await runExport(record, ctx);
      else await runImport(record, ctx, life);
    } finally {
      life.end();
    }
  } catch (err) {
    if (!input.lastAttempt) throw err;
    const last = record ?? (await lastWords(() => recordById(input.record_id)));
    if (!last) throw err;
    await failedForGood(last, err, ctx);
  }
}

/** The last attempt failed: what it left half written is taken back, then its record fails and the import's lock is let go. */
async function failedForGood(record: ImpexRecord, err: unknown, ctx: AppContext) {
  const { id, kind, project_id: projectId, environment_id: envId } = record;
  if (kind === 'import')
    await lastWords(() => undoInterruptedImport(projectId, envId, id, ctx.clock.now())).catch((e) =>
      log.error('impex job left staged writes', { record_id: id, ...errorFields(e) }),
    );
  log.error('impex job failed for good', { record_id: id, ...errorFields(err) });
  const failed = await failForGood(record, ctx);
  if (kind === 'import' && !record.dry_run)
    await releaseImportLock(projectId, envId, record.job_id).catch((e) =>
      log.error('import lock not released', { record_id: id, ...errorFields(e) }),
    );
  if (!failed) return;
  if (kind === 'import') metric('ImportsFailed');
  await publishProgress(failed, ctx);
}

async function runExport(record: ImpexRecord, ctx: AppContext) {
  const now = ctx.clock.now();
  const parts = exportParts({
    projectId: record.project_id,
    environmentId: record.environment_id,
    recordId: record.id,
    exportedAt: now.toISOString(),
  });
  const key = `exports/${record.project_id}/${record.id}.yaml`;
  // Rendered and uploaded a part at a time: the document is never held whole.
  await uploadDocument(key, yamlText(parts), 'application/yaml');
  const expiresAt = new Date(now.getTime() + ctx.config.IMPEX_LINK_TTL_HOURS * HOUR_MS);
  await step(
    record,
    {
      status: 'succeeded',
      document_key: key,
      download_url: await signedDownloadUrl(ctx.config.API_BASE_URL, record.id, expiresAt),
      link_expires_at: expiresAt.toISOString(),
      progress: progressAt(1, 1),
    },
    ctx,
  );
}

/**
 * The import's document, parsed. An earlier run of this job that stopped part-way may have left a
 * chunk half written: undone (beside the download) before planning again. The text is a local of
 * this function only: an async function keeps its locals alive across every later await, and the
 * text (24 MB at 50,000 services) is not needed once parsed.
 */
async function readImportDocument(record: ImpexRecord, ctx: AppContext) {
  const [text] = await Promise.all([
    getDocument(record.document_key!),
    undoInterruptedImport(record.project_id, record.environment_id, record.id, ctx.clock.now()),
  ]);
  return parseDocument(text);
}

/** Refusal of a saved plan's import when the environment is no longer what the plan was made against. */
export const PLAN_STALE =
  'The environment changed since the plan was made: nothing was written. Plan again (infracat plan -o plan.json) and apply the new plan.';

/** Failure of an import planned again after the custom field definitions changed under it, when its values no longer pass them. */
const DEFINITIONS_REFUSE =
  'The custom field definitions changed during the import and the document no longer passes them: nothing more was written.';

/**
 * An import that writes runs holding the environment's lock (taken when it was started; taken again
 * here, as the lease may have run out while the job waited in the queue: then only if nobody else has it).
 */
async function runImport(record: ImpexRecord, ctx: AppContext, life: JobLife) {
  if (record.dry_run) return planOrApply(record, ctx, life);
  try {
    await takeImportLock(record.project_id, record.environment_id, record.created_by, record.job_id, ctx.clock.now());
  } catch (err) {
    if (!isRefusal(err, 'conflict')) throw err;
    await step(record, { status: 'failed', error: String(err.detail) }, ctx);
    return;
  }
  await whileLocked(
    record.project_id,
    record.environment_id,
    record.job_id,
    () => ctx.clock.now(),
    () => planOrApply(record, ctx, life),
  );
}

async function planOrApply(record: ImpexRecord, ctx: AppContext, life: JobLife) {
  const parsed = await readImportDocument(record, ctx);
  if (!parsed.document) {
    // Problems never hide what the environment has beyond the document (as far as it could be read).
    const env = await readEnvironment(record.project_id, record.environment_id).catch((err) =>
      err instanceof DomainError ? undefined : Promise.reject(err),
    );
    const extras = env ? extrasOf(parsed.spec, env) : [];
    const report = {
      summary: { create: 0, update: 0, unchanged: 0, error: parsed.errors.length },
      items: [],
      errors: parsed.errors,
      extras,
    };
    await step(record, { status: 'failed', report, error: 'The document has errors; nothing was written.' }, ctx);
    return;
  }
  const document = parsed.document;
  // The record as last written, kept across plans: planned again, the walk starts over, and the progress it shows
  // holds until the new pass passes it (a retried job likewise goes on from what its record shows).
  const written: Written = { record, at: Number.NEGATIVE_INFINITY };
  // The custom field definitions changed under a chunk (refused and undone): planned again, against them.
  await onContention(
    (attempt) => planThenApply(record, ctx, life, document, attempt > 1, written),
    (err) => err === DEFINITIONS_CHANGED,
  );
}

/** An import's record as the job last wrote it (its progress), and when (`performance.now()`). */
interface Written {
  record: ImpexRecord;
  at: number;
}

async function planThenApply(
  record: ImpexRecord,
  ctx: AppContext,
  life: JobLife,
  document: EnvironmentDocument,
  again: boolean,
  written: Written,
) {
  const plan = await planImport({ projectId: record.project_id, environmentId: record.environment_id, document }, ctx);
  const extras = plan.source ? extrasOf(document.spec, plan.source.env) : [];
  plan.report.extras = extras;
  if (plan.report.errors.length) {
    const error = again ? DEFINITIONS_REFUSE : 'The import has errors; nothing was written.';
    await step(record, { status: 'failed', report: plan.report, error }, ctx);
    return;
  }
  if (life.stopReason() === 'cancelled') {
    await step(record, { status: 'cancelled' }, ctx);
    return;
  }
  // Planned again, the environment differs from the saved plan's by this import's own writes.
  if (!again && record.plan_fingerprint && record.plan_fingerprint !== plan.fingerprint) {
    await step(record, { status: 'failed', error: PLAN_STALE }, ctx);
    return;
  }
  if (record.dry_run) {
    await step(record, { status: 'succeeded', report: plan.report, progress: progressAt(0, 0) }, ctx);
    return;
  }
  const halt = () => life.stopReason() !== undefined;
  // Every entry the import writes names it and the account that started it.
  const starter = await getAccount(record.created_by);
  const days = plan.plan?.features.data_retention_days ?? null;
  const audit = { importId: record.id, actor: starter ? accountActor(starter) : SERVICE_ACTOR, days };
  const report = await applyImport(
    plan,
    ctx,
    async (done, total) => {
      const progress = progressAt(done, total);
      const shown = written.record.progress;
      if (goesBack(shown, progress)) return;
      if (progress.pct === shown.pct && done < total && performance.now() - written.at < PROGRESS_EVERY_MS) return;
      written.at = performance.now();
      const next = await step(written.record, { progress }, ctx);
      life.see(next);
      written.record = next ?? written.record;
    },
    audit,
    undefined,
    halt,
  );
  // The deletions of a prune, under the same lock, once everything the document has is written.
  if (record.prune && !report.errors.length && !halt())
    await pruneInto(report, { ctx, importId: record.id, starter, extras, halt });
  report.extras = extras;
  const stop = life.stopReason();
  // Finished by someone else meanwhile (a reader found it stalled): that is its result.
  if (stop === 'finished') return;
  // A cancelled import's chunk in flight was undone as it stopped; one whose undo failed is undone now.
  if (stop === 'cancelled')
    await lastWords(() => undoInterruptedImport(record.project_id, record.environment_id, record.id, ctx.clock.now()));
  const outcome = report.errors.length ? 'stopped' : stop === 'cancelled' ? 'cancelled' : 'succeeded';
  // One entry for the import as a whole, with its counts, written with the record's result.
  const entry = auditStep(
    ctx,
    {
      action: 'import.apply',
      entity_type: 'import',
      entity_id: record.id,
      project_id: record.project_id,
      environment_id: record.environment_id,
      import_id: record.id,
      summary: { ...report.summary, status: outcome },
    },
    { mode: 'creation' },
    { actor: audit.actor },
  );
  const { done, total } = written.record.progress;
  const fields = {
    status: stop === 'cancelled' ? ('cancelled' as const) : ('succeeded' as const),
    report: kept(report),
    progress: progressAt(stop === 'cancelled' ? done : total, total),
  };
  const next = await finishRecordWith(written.record, fields, ctx, entry);
  if (next) await publishProgress(next, ctx);
  if (next && fields.status === 'cancelled') metric('ImportsCancelled');
}
