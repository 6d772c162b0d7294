import { createHash, randomBytes } from 'node:crypto';
import { keys } from '#db/keys';
import { deleteItem, getItem, putItem } from '#db/items';
import { spendOnce } from '#db/claims';
import { queryPartition } from '#db/query';
import { transact } from '#db/transact';
import { deleteStep, putStep } from '#db/steps';
import { push } from './push';
import { unauthenticated } from './errors';
import { errorFields, log } from './log';
import { epochSeconds, type AppContext } from './context';

/**
 * Live job progress over WebSockets, for any kind of job (export/import, discovery). A client asks
 * its job's context for a ticket (an authenticated request that checks the caller may see the job;
 * the ticket is random, single-use, valid one minute and bound to the account and the job) and
 * opens `WS_BASE_URL?ticket=…`; the connection is accepted only with a ticket, which it spends. No
 * long-lived access token ever travels in a URL (URLs end up in logs). The job's owner pushes its
 * messages to every connection following the job id.
 */

export const TICKET_TTL_SECONDS = 60;
/** A connection is forgotten after two hours even without a disconnect (DynamoDB TTL). */
const CONNECTION_TTL_SECONDS = 2 * 3600;
export const INVALID_TICKET = 'Invalid or expired ticket';

const hash = (ticket: string) => createHash('sha256').update(ticket).digest('hex');

/** A ticket for `userId` to follow `jobId` (the caller has checked that the user may see the job). */
export async function issueTicket(ctx: AppContext, userId: string, jobId: string) {
  const ticket = randomBytes(32).toString('base64url');
  const now = epochSeconds(ctx.clock.now());
  await putItem({
    ...keys.wsTicket(hash(ticket)),
    type: 'ws_ticket',
    user_id: userId,
    job_id: jobId,
    expires_at: now + TICKET_TTL_SECONDS,
    expires_at_epoch: now + TICKET_TTL_SECONDS,
  });
  const url = `${ctx.config.WS_BASE_URL}?ticket=${ticket}`;
  return { ticket, url, expires_in: TICKET_TTL_SECONDS };
}

/** The `$connect` check: spends the ticket (a second use, an unknown or expired one: refused). Answers whom and what it follows. */
export async function spendTicket(
  ctx: AppContext,
  ticket: string | undefined,
): Promise<{ userId: string; jobId: string }> {
  if (!ticket) throw unauthenticated(INVALID_TICKET);
  const now = epochSeconds(ctx.clock.now());
  // Marked spent rather than deleted: a conditional write answers exactly through the SDK's retries
  // (a delete retried after it took effect finds nothing and would refuse a good ticket). TTL removes it.
  const spent = await spendOnce(keys.wsTicket(hash(ticket)), 'spent_at', now);
  if (!spent || Number(spent.expires_at) < now) throw unauthenticated(INVALID_TICKET);
  return { userId: String(spent.user_id), jobId: String(spent.job_id) };
}

/** Remembers a connection following a job. */
export async function connect(
  ctx: AppContext,
  input: { connectionId: string; userId: string; jobId: string },
): Promise<void> {
  const expires = epochSeconds(ctx.clock.now()) + CONNECTION_TTL_SECONDS;
  await transact([
    putStep({
      ...keys.jobConnection(input.jobId, input.connectionId),
      type: 'job_connection',
      connection_id: input.connectionId,
      user_id: input.userId,
      expires_at_epoch: expires,
    }),
    putStep({
      ...keys.wsConnection(input.connectionId),
      type: 'ws_connection',
      job_id: input.jobId,
      expires_at_epoch: expires,
    }),
  ]);
}

export async function disconnect(input: { connectionId: string }): Promise<void> {
  const gone = await deleteItem(keys.wsConnection(input.connectionId));
  if (gone?.job_id) await transact([deleteStep(keys.jobConnection(String(gone.job_id), input.connectionId))]);
}

/** The job a connection follows, if it is still known. */
export async function jobOfConnection(connectionId: string): Promise<string | undefined> {
  return (await getItem<{ job_id: string }>(keys.wsConnection(connectionId)))?.job_id;
}

/** Sends a message to every connection following a job; connections that are gone are forgotten. Never throws (a lost message is fine: the record is the truth). */
export async function pushToJob(jobId: string, message: unknown): Promise<void> {
  try {
    const connections = await queryPartition<{ connection_id: string }>(keys.jobConnectionsPK(jobId), 'CONN#');
    const text = JSON.stringify(message);
    await Promise.all(
      connections.map(async (c) => {
        if (!(await push(c.connection_id, text))) await disconnect({ connectionId: c.connection_id });
      }),
    );
  } catch (err) {
    log.warn('progress not pushed', { job_id: jobId, ...errorFields(err) });
  }
}

/** A job's current progress message by kind of job, or undefined when the id is not a job of that kind. */
export type ProgressSource = (jobId: string) => Promise<unknown | undefined>;

/**
 * A client's message on its connection (any message; `{"action":"sync"}` by convention): answers with
 * the job's current state from the first source that knows the job, so a client that connects after
 * progress was sent (or after the job finished) still learns where it stands.
 */
export async function syncConnection(input: { connectionId: string }, sources: ProgressSource[]): Promise<void> {
  const jobId = await jobOfConnection(input.connectionId);
  if (!jobId) return;
  for (const source of sources) {
    const message = await source(jobId);
    if (message !== undefined) {
      await push(input.connectionId, JSON.stringify(message));
      return;
    }
  }
}
