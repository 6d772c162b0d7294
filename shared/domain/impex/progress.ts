import { createHash, randomBytes } from 'node:crypto';
import { keys } from '#db/keys';
import { deleteItem, getItem, putItem } from '#db/items';
import { queryPartition } from '#db/query';
import { transact } from '#db/transact';
import { deleteStep, putStep } from '#db/steps';
import { push } from '#shared/push';
import { unauthenticated } from '#shared/errors';
import { errorFields, log } from '#shared/log';
import { actorAccount, epochSeconds, type AppContext } from '#shared/context';
import { JOB_KIND, JOB_NOT_FOUND, memberRecordOf, recordByJob } from './records';
import type { ImpexRecord } from './record-entity';

/**
 * Live job progress over WebSockets. A client asks for a ticket for one job (an authenticated
 * request; the ticket is random, single-use, valid one minute and bound to the account and the
 * job) and opens `WS_BASE_URL?ticket=…`; the connection is accepted only with a ticket, which it
 * spends. No long-lived access token ever travels in a URL (URLs end up in logs).
 */

export const TICKET_TTL_SECONDS = 60;
/** A connection is forgotten after two hours even without a disconnect (DynamoDB TTL). */
const CONNECTION_TTL_SECONDS = 2 * 3600;
export const INVALID_TICKET = 'Invalid or expired ticket';

const hash = (ticket: string) => createHash('sha256').update(ticket).digest('hex');

/** POST /impex/progress-ticket {job_id}: a ticket to follow a job of a project the caller is a member of. */
export async function progressTicket(ctx: AppContext, input: { job_id: string }) {
  const userId = actorAccount(ctx).id;
  await memberRecordOf(input.job_id, JOB_KIND, userId, JOB_NOT_FOUND);
  const ticket = randomBytes(32).toString('base64url');
  const now = epochSeconds(ctx.clock.now());
  await putItem({ ...keys.wsTicket(hash(ticket)), type: 'ws_ticket', user_id: userId, job_id: input.job_id, expires_at: now + TICKET_TTL_SECONDS, expires_at_epoch: now + TICKET_TTL_SECONDS });
  const url = `${ctx.config.WS_BASE_URL}?ticket=${ticket}`;
  return { ticket, url, expires_in: TICKET_TTL_SECONDS };
}

/** The `$connect` check: spends the ticket (a second use, an unknown or expired one: refused). Answers whom and what it follows. */
export async function spendTicket(ctx: AppContext, ticket: string | undefined): Promise<{ userId: string; jobId: string }> {
  if (!ticket) throw unauthenticated(INVALID_TICKET);
  const spent = await deleteItem(keys.wsTicket(hash(ticket)));
  if (!spent || Number(spent.expires_at) < epochSeconds(ctx.clock.now())) throw unauthenticated(INVALID_TICKET);
  return { userId: String(spent.user_id), jobId: String(spent.job_id) };
}

/** Remembers a connection following a job. */
export async function connect(ctx: AppContext, input: { connectionId: string; userId: string; jobId: string }): Promise<void> {
  const expires = epochSeconds(ctx.clock.now()) + CONNECTION_TTL_SECONDS;
  await transact([
    putStep({ ...keys.jobConnection(input.jobId, input.connectionId), type: 'job_connection', connection_id: input.connectionId, user_id: input.userId, expires_at_epoch: expires }),
    putStep({ ...keys.wsConnection(input.connectionId), type: 'ws_connection', job_id: input.jobId, expires_at_epoch: expires }),
  ]);
}

export async function disconnect(input: { connectionId: string }): Promise<void> {
  const gone = await deleteItem(keys.wsConnection(input.connectionId));
  if (gone?.job_id) await transact([deleteStep(keys.jobConnection(String(gone.job_id), input.connectionId))]);
}

/**
 * A client's message on its connection (any message; `{"action":"sync"}` by convention): answers with
 * the job's current state, so a client that connects after progress was sent (or after the job
 * finished) still learns where it stands. Messages cannot be sent during `$connect` itself.
 */
export async function syncConnection(input: { connectionId: string }): Promise<void> {
  const conn = await getItem<{ job_id: string }>(keys.wsConnection(input.connectionId));
  if (!conn) return;
  const record = await recordByJob(conn.job_id);
  if (record) await push(input.connectionId, JSON.stringify(progressMessage(record)));
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

/** Sends a record's progress to every connection following its job; connections that are gone are forgotten. Never fails the job. */
export async function publishProgress(record: ImpexRecord, _ctx: AppContext): Promise<void> {
  try {
    const connections = await queryPartition<{ connection_id: string }>(keys.jobConnectionsPK(record.job_id), 'CONN#');
    const message = JSON.stringify(progressMessage(record));
    await Promise.all(
      connections.map(async (c) => {
        if (!(await push(c.connection_id, message))) await disconnect({ connectionId: c.connection_id });
      }),
    );
  } catch (err) {
    log.warn('progress not pushed', { job_id: record.job_id, ...errorFields(err) });
  }
}
