import { createHash, randomBytes } from 'node:crypto';
import { keys } from '#db/keys';
import { deleteItem, getItem, putItem } from '#db/items';
import { spendOnce } from '#db/claims';
import { queryPartition } from '#db/query';
import { transact } from '#db/transact';
import { deleteStep, putStep } from '#db/steps';
import { push } from './push.ts';
import { unauthenticated } from './errors.ts';
import { errorFields, log } from './log.ts';
import { epochSeconds, type AppContext } from './context.ts';

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

/**
 * What a live ticket binds (an environment's changes, `#domain/live`): the environment, where to resume,
 * and the credential it was asked with (a session or an API key, and the account's token version then),
 * which every message sent to the connection checks again.
 */
export interface LiveBinding {
  project_id: string;
  environment_id: string;
  since: number | null;
  session_id: string | null;
  key_id: string | null;
  token_version: number;
}

/** Who spent a ticket, and what it follows: a job's progress (`jobId`) or an environment's changes (`live`). */
export interface TicketHolder {
  userId: string;
  jobId?: string;
  live?: LiveBinding;
}

async function putTicket(ctx: AppContext, userId: string, follows: Record<string, unknown>) {
  const ticket = randomBytes(32).toString('base64url');
  const now = epochSeconds(ctx.clock.now());
  await putItem({
    ...keys.wsTicket(hash(ticket)),
    type: 'ws_ticket',
    user_id: userId,
    ...follows,
    expires_at: now + TICKET_TTL_SECONDS,
    expires_at_epoch: now + TICKET_TTL_SECONDS,
  });
  const url = `${ctx.config.WS_BASE_URL}?ticket=${ticket}`;
  return { ticket, url, expires_in: TICKET_TTL_SECONDS };
}

/** A ticket for `userId` to follow `jobId` (the caller has checked that the user may see the job). */
export const issueTicket = (ctx: AppContext, userId: string, jobId: string) =>
  putTicket(ctx, userId, { job_id: jobId });

/** A ticket for `userId` to follow an environment's changes (the caller has checked that the user may read it). */
export const issueLiveTicket = (ctx: AppContext, userId: string, live: LiveBinding) => putTicket(ctx, userId, { live });

/** The `$connect` check: spends the ticket (a second use, an unknown or expired one: refused). Answers whom and what it follows. */
export async function spendTicket(ctx: AppContext, ticket: string | undefined): Promise<TicketHolder> {
  if (!ticket) throw unauthenticated(INVALID_TICKET);
  const now = epochSeconds(ctx.clock.now());
  // Marked spent rather than deleted: a conditional write answers exactly through the SDK's retries
  // (a delete retried after it took effect finds nothing and would refuse a good ticket). TTL removes it.
  const spent = await spendOnce(keys.wsTicket(hash(ticket)), 'spent_at', now);
  if (!spent || Number(spent.expires_at) < now) throw unauthenticated(INVALID_TICKET);
  const userId = String(spent.user_id);
  if (spent.live) return { userId, live: spent.live as LiveBinding };
  return { userId, jobId: String(spent.job_id) };
}

/**
 * Remembers a connection: following a job (`jobId`), or with `also`, the items its follower keeps
 * (a live connection's, `#domain/live`), which go with it on disconnect.
 */
export async function connect(
  ctx: AppContext,
  input: { connectionId: string; userId: string; jobId?: string; envId?: string; also?: Record<string, unknown>[] },
): Promise<void> {
  const expires = epochSeconds(ctx.clock.now()) + CONNECTION_TTL_SECONDS;
  const also = (input.also ?? []).map((item): Record<string, unknown> => ({ ...item, expires_at_epoch: expires }));
  await transact([
    ...(input.jobId
      ? [
          putStep({
            ...keys.jobConnection(input.jobId, input.connectionId),
            type: 'job_connection',
            connection_id: input.connectionId,
            user_id: input.userId,
            expires_at_epoch: expires,
          }),
        ]
      : []),
    ...also.map(putStep),
    putStep({
      ...keys.wsConnection(input.connectionId),
      type: 'ws_connection',
      ...(input.jobId ? { job_id: input.jobId } : {}),
      ...(input.envId ? { env_id: input.envId } : {}),
      also: also.map((i) => ({ PK: String(i.PK), SK: String(i.SK) })),
      expires_at_epoch: expires,
    }),
  ]);
}

export async function disconnect(input: { connectionId: string }): Promise<void> {
  const gone = await deleteItem(keys.wsConnection(input.connectionId));
  const also = Array.isArray(gone?.also) ? (gone.also as { PK: string; SK: string }[]) : [];
  const steps = [
    ...(gone?.job_id ? [deleteStep(keys.jobConnection(String(gone.job_id), input.connectionId))] : []),
    ...also.map((k) => deleteStep({ PK: String(k.PK), SK: String(k.SK) })),
  ];
  if (steps.length) await transact(steps);
}

/** What a connection follows, if it is still known: a job, or an environment's changes. */
export async function connectionOf(connectionId: string): Promise<{ jobId?: string; envId?: string } | undefined> {
  const c = await getItem<{ job_id?: string; env_id?: string }>(keys.wsConnection(connectionId));
  return c && { jobId: c.job_id, envId: c.env_id };
}

/** The job a connection follows, if it is still known. */
async function jobOfConnection(connectionId: string): Promise<string | undefined> {
  return (await connectionOf(connectionId))?.jobId;
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
