import { throughOutage } from '#db/retry';
import { errorFields, log } from '#shared/log';
import type { AppContext } from '#shared/context';
import { IMPORT_LEASE_MS } from './import-lock.ts';
import { finishRecord, updateRecord } from './records.ts';
import { undoInterruptedImport } from './import/index.ts';
import type { ImpexRecord } from './record-entity.ts';

/**
 * A running job shows it lives by writing its record's `heartbeat_at` every HEARTBEAT_MS; a record
 * silent for STALL_MS (an import's lock lease: the lock is free by then too) belongs to a job that
 * died (a Lambda killed, a message whose retry waits its 90-minute visibility timeout, or one gone to
 * the dead-letter queue). Whoever reads it then finishes it as failed, so no job shows `running`
 * forever; a job still alive finds its heartbeat refused and stops at its next chunk boundary.
 */
export const HEARTBEAT_MS = 5_000;
export const STALL_MS = IMPORT_LEASE_MS;
export const JOB_STALLED =
  'The job stopped without finishing (no sign of life for 2 minutes); what it left half written was undone. Please try again.';
export const JOB_DEAD_LETTERED = 'The job failed after its retries. Please try again.';

const lastSign = (r: ImpexRecord) => r.heartbeat_at ?? r.updated_at;
export const isStalled = (r: ImpexRecord, now: Date) =>
  r.status === 'running' && now.getTime() - Date.parse(lastSign(r)) > STALL_MS;

/** A record as readers see it: a stalled job's record is finished as failed first (only while its heartbeat is still the one read). */
export async function asSeen(record: ImpexRecord, ctx: AppContext): Promise<ImpexRecord> {
  if (!isStalled(record, ctx.clock.now())) return record;
  const same = {
    expression: '#hb = :hb',
    names: { '#hb': record.heartbeat_at ? 'heartbeat_at' : 'updated_at' },
    values: { ':hb': lastSign(record) },
  };
  const failed = await finishRecord(record, { status: 'failed', error: JOB_STALLED }, ctx, same);
  // Not written: it moved meanwhile (a heartbeat, or another reader finished it). Shown as read.
  if (!failed) return record;
  log.warn('impex job stalled; its record is failed', { record_id: record.id, last_sign: lastSign(record) });
  // Its half-written chunk is taken back now (a close racing this undo is refused: each chunk is wholly in or out).
  if (record.kind === 'import') {
    await lastWords(() =>
      undoInterruptedImport(record.project_id, record.environment_id, record.id, ctx.clock.now()),
    ).catch((err) =>
      log.error('stalled import left staged writes (undone once stale)', { record_id: record.id, ...errorFields(err) }),
    );
  }
  return failed;
}

/** Why a running job stops before its end: a cancel was asked for, or its record was finished by someone else (stalled). */
export type StopReason = 'cancelled' | 'finished';

/** What a running job keeps: its heartbeat, and whether it should stop (checked at each chunk boundary). */
export interface JobLife {
  stopReason(): StopReason | undefined;
  /** A record as the job just wrote it (its progress): a cancel asked for shows there before the next heartbeat. */
  see(record: ImpexRecord | undefined): void;
  end(): void;
}

/** Starts the heartbeat of the job of `record` (running). */
export function keepAlive(record: ImpexRecord, ctx: AppContext): JobLife {
  let reason: StopReason | undefined;
  const see = (r: ImpexRecord | undefined) => {
    if (!r) reason ??= 'finished';
    else if (r.cancel_requested_by) reason ??= 'cancelled';
  };
  const beat = async () => {
    const now = ctx.clock.now().toISOString();
    const running = { expression: '#st = :running', names: { '#st': 'status' }, values: { ':running': 'running' } };
    see(await updateRecord(record, { heartbeat_at: now }, ctx, running));
  };
  const timer = setInterval(
    () =>
      beat().catch((err) =>
        log.error('impex job heartbeat not written', { record_id: record.id, ...errorFields(err) }),
      ),
    HEARTBEAT_MS,
  );
  return { stopReason: () => reason, see, end: () => clearInterval(timer) };
}

/**
 * The last receive of a job's message failed: its record is finished as failed (and the import's lock
 * let go by the caller), so a dead-lettered job never stays queued or running. Retried through an
 * outage: this write is the job's last word.
 */
export const failForGood = (
  record: ImpexRecord,
  ctx: AppContext,
  error = JOB_DEAD_LETTERED,
): Promise<ImpexRecord | undefined> => lastWords(() => finishRecord(record, { status: 'failed', error }, ctx));

/** A job's last words (its record's end, the undo of what it left): nobody runs them again, and no one waits on them. */
export const lastWords = <T>(fn: () => Promise<T>): Promise<T> => throughOutage(fn, 9);
