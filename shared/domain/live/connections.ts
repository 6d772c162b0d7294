import { keys } from '#db/keys';
import { getItem } from '#db/items';
import { queryPartition } from '#db/query';
import { numberIsStep } from '#db/sequence';
import { existingSetStep } from '#db/steps';
import { concurrentChange, transact } from '#db/transact';
import { CONTENTION, onContention } from '#db/retry';
import { actorAccount, type AppContext } from '#shared/context';
import { errorFields, log } from '#shared/log';
import { closeConnection, push } from '#shared/push';
import { connectionOf, disconnect, issueLiveTicket, type LiveBinding } from '#shared/progress';
import { accessInEnvironment } from '#domain/tenancy';
import { SERVICES_FORBIDDEN_VIEW } from '#domain/catalog';
import { accessJudge, type LiveConnection } from './access.ts';
import { changesAfter, counterOf, type LiveMessage } from './record.ts';

/**
 * Following an environment's changes over the progress WebSocket API (one API, one ticket mechanism:
 * `#shared/progress`). A connection is recorded at `$connect` and is not yet live; the client's first
 * message starts it (`startLive`): the changes after its `since` are sent from what is kept, then it is
 * marked live from the next `seq` in one transaction that holds only while the environment's counter
 * still reads what was replayed up to, so every later change reaches it by the fan-out, none twice,
 * in order; then `{live: true, seq}` tells the client it is live and the `seq` it stands at.
 */

/**
 * POST /live/ticket: refused exactly as GET /services refuses for that project and environment. Without
 * `since` the connection follows from when the ticket was issued (the environment's `seq` then, read
 * beside the access check): a client that reads the environment after this answer misses no change,
 * even one numbered before its socket opens. A `since` past that `seq` (one no change has yet) is taken as
 * it. The answer says which `seq` the connection follows after (`since`).
 */
export async function liveTicket(
  ctx: AppContext,
  input: { project_id: string; environment_id: string; since?: number },
) {
  const account = actorAccount(ctx);
  const [{ access }, now] = await Promise.all([
    accessInEnvironment(input.project_id, account.id, input.environment_id),
    counterOf(input.environment_id),
  ]);
  access.require('services.view', SERVICES_FORBIDDEN_VIEW, input.environment_id);
  const since = Math.min(input.since ?? now.seq, now.seq);
  const ticket = await issueLiveTicket(ctx, account.id, {
    project_id: input.project_id,
    environment_id: input.environment_id,
    since,
    session_id: ctx.actor?.session?.id ?? null,
    key_id: ctx.actor?.key?.key_id ?? null,
    token_version: account.token_version,
  });
  return { ...ticket, since };
}

/** The items a live connection keeps (for `connect` of `#shared/progress`, which removes them on disconnect). */
export const liveConnectionItems = (connectionId: string, userId: string, live: LiveBinding) => [
  {
    ...keys.liveConnection(live.environment_id, connectionId),
    type: 'live_connection',
    connection_id: connectionId,
    user_id: userId,
    ...live,
  },
  {
    ...keys.userLiveConnection(userId, connectionId),
    type: 'live_user_connection',
    connection_id: connectionId,
    environment_id: live.environment_id,
  },
];

const send = (connectionId: string, message: unknown) => push(connectionId, JSON.stringify(message));

/** Closes a connection from the server's side and forgets it (its `$disconnect` may follow: it finds nothing). */
async function close(connectionId: string): Promise<void> {
  await closeConnection(connectionId).catch((err) => log.warn('live connection not closed', errorFields(err)));
  await disconnect({ connectionId });
}

/** A message telling the client that what it asked to resume from is no longer kept. */
const reload = (since: number, seq: number) => ({
  reload: true,
  seq,
  detail: `Changes after ${since} are no longer kept: reload the environment`,
});

/** The environment moved on while a connection's replay ran: replay what came since. */
const MOVED_ON = concurrentChange();

/**
 * A client's message on a live connection (the first: `{"action":"sync"}`): replays what it missed
 * and makes it live. A second message finds it live and does nothing.
 */
export async function startLive(ctx: AppContext, connectionId: string): Promise<void> {
  const envId = (await connectionOf(connectionId))?.envId;
  if (!envId) return;
  const key = keys.liveConnection(envId, connectionId);
  const conn = await getItem<LiveConnection>(key);
  if (!conn || conn.from_seq !== undefined) return;
  if (!(await accessJudge(ctx)(conn))) return close(connectionId);
  let sent = conn.since;
  // Each round replays what was numbered since the last; it ends when the counter held still (or the connection went).
  await onContention(
    async (attempt) => {
      const { seq } = await counterOf(envId);
      if (sent === null || sent > seq) sent = seq; // nothing to replay (no since, or one from the future)
      const missed = await changesAfter(envId, sent, seq, ctx.clock.now());
      if (!missed || attempt >= CONTENTION.attempts - 1) await send(connectionId, reload(sent, seq));
      else for (const m of missed) if (!(await send(connectionId, m))) return disconnect({ connectionId });
      sent = seq;
      try {
        await transact([
          numberIsStep(keys.liveSeq(envId), 'seq', seq, MOVED_ON),
          existingSetStep(key, { from_seq: seq + 1 }),
        ]);
      } catch (err) {
        if (err === MOVED_ON && (await getItem(key))) throw MOVED_ON;
        return; // the connection went meanwhile
      }
      // The client learns it is live, and from where (what to resume from even when nothing changes).
      await send(connectionId, { live: true, seq });
    },
    (err) => err === MOVED_ON,
  );
}

/** The connections following an environment. */
const followers = (envId: string) => queryPartition<LiveConnection>(keys.livePK(envId), 'CONN#');

/**
 * Sends an environment's new changes to every live connection whose account may still read it (judged
 * now, once per account: a change numbered after a removal was answered never reaches the removed);
 * one that may not is closed. After the environment's own deletion its connections are closed.
 */
export async function fanOut(ctx: AppContext, envId: string, messages: LiveMessage[]): Promise<void> {
  if (!messages.length) return;
  const judge = accessJudge(ctx);
  const envGone = messages.some((m) => m.kind === 'environment' && m.op === 'deleted');
  await Promise.all(
    (await followers(envId)).map(async (c) => {
      if (c.from_seq === undefined) return; // not live yet: its replay reaches these
      if (!(await judge(c))) return close(c.connection_id);
      for (const m of messages) {
        if (m.seq < c.from_seq) continue;
        if (!(await send(c.connection_id, m))) return disconnect({ connectionId: c.connection_id });
      }
      if (envGone) await close(c.connection_id);
    }),
  );
}

/** Closes the live connections of these accounts that may no longer read their environment (a removal, a revoked session). */
export async function closeLost(ctx: AppContext, userIds: string[]): Promise<void> {
  const judge = accessJudge(ctx);
  await Promise.all(
    userIds.map(async (userId) => {
      const mine = await queryPartition<{ connection_id: string; environment_id: string }>(
        keys.userLivePK(userId),
        'CONN#',
      );
      await Promise.all(
        mine.map(async (m) => {
          const conn = await getItem<LiveConnection>(keys.liveConnection(m.environment_id, m.connection_id));
          if (!conn || !(await judge(conn))) await close(m.connection_id);
        }),
      );
    }),
  );
}
