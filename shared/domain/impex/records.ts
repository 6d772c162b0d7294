import { keys } from '#db/keys';
import { getItem } from '#db/items';
import { locate } from '#db/lookup';
import type { Condition } from '#db/condition';
import { moveOnWhileUnfinished, moveOnWhileUnfinishedStep } from '#db/sequence';
import { concurrentChange, transact, type TransactStep } from '#db/transact';
import { isRefusal, notFound } from '#shared/errors';
import type { AppContext } from '#shared/context';
import { accessToItem } from '#domain/tenancy';
import { impexRecordEntity, type ImpexRecord } from './record-entity.ts';

/** An export's or import's record: found by its id or its job's (for a member of its project), moved on, finished. */

export const NOT_A_MEMBER = 'Not a member of this project';
export const RECORD_NOT_FOUND = 'Record not found';
export const JOB_NOT_FOUND = 'Job not found';
export const RECORD_KIND = 'impex_record';
export const JOB_KIND = 'impex_job';

export const recordKey = (r: Pick<ImpexRecord, 'project_id' | 'created_at' | 'id'>) =>
  keys.impexRecord(r.project_id, r.created_at, r.id);

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
