import type { InfracatClient } from './client.ts';
import { ApiError } from './errors.ts';

/** One change of an environment, as the live WebSocket sends it (`item`: the item as its GET answers it; absent on delete). */
export interface LiveChange {
  seq: number;
  kind: 'service' | 'service_floor' | 'network' | 'connection' | 'link' | 'group' | 'subgroup' | 'environment';
  id: string;
  op: 'created' | 'updated' | 'deleted';
  at: string;
  item?: Record<string, unknown>;
}

/** Where a follower stands: opening, live, waiting to reconnect, or ended (stopped, or refused for good). */
export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'ended';

export interface FollowOptions {
  /** Resume after this `seq` (the changes after it are replayed, when still kept). */
  since?: number;
  onChange: (change: LiveChange) => void;
  onStatus?: (status: LiveStatus) => void;
  /**
   * Called once, when the first ticket is issued: every change from then on reaches `onChange` (without
   * `since`, the server follows from the ticket's issue), so a read of the environment begun after this
   * misses none. Read first and follow after, and a change made in between could be missed.
   */
  onStart?: () => void;
  /** What was asked to resume from is no longer kept (24 hours): reload what is shown; changes follow from `seq`. */
  onReload?: (seq: number) => void;
  signal?: AbortSignal;
  /** The longest wait between reconnects (default 5 s; the first is at once, then it doubles from 250 ms). */
  maxBackoffMs?: number;
}

type Message = Partial<LiveChange> & { seq: number; live?: true; reload?: true };

/** Statuses of a ticket request that will not change by asking again: the account may not follow this environment. */
const FINAL = new Set([400, 401, 403, 404, 422]);

/**
 * Follows an environment's changes over the live WebSocket (a single-use ticket from `POST /live/ticket`)
 * until stopped: each change once, in `seq` order. A dropped connection is opened again with a new ticket
 * asking for the changes after the last one seen (`since`), so none is missed; a gap in `seq` (a message
 * the server could not send) does the same. Ends (status `ended`, the promise rejected with the
 * `ApiError`) when the ticket is refused for good, e.g. the account lost access; resolves when stopped.
 */
export function followEnvironment(
  client: InfracatClient,
  scope: { project_id: string; environment_id: string },
  opts: FollowOptions,
): Promise<void> {
  let last = opts.since;
  let stopped = opts.signal?.aborted ?? false;
  let started = false;
  let socket: WebSocket | undefined;
  const status = (s: LiveStatus) => opts.onStatus?.(s);
  const sleep = (ms: number) =>
    new Promise<void>((r) => {
      const t = setTimeout(r, ms);
      opts.signal?.addEventListener('abort', () => (clearTimeout(t), r()), { once: true });
    });
  opts.signal?.addEventListener('abort', () => {
    stopped = true;
    socket?.close();
  });

  /** One connection: resolves when it closes (a gap closes it too). */
  const connection = (url: string, live: () => void) =>
    new Promise<void>((resolve) => {
      const ws = new WebSocket(url);
      socket = ws;
      ws.onopen = () => ws.send(JSON.stringify({ action: 'sync' }));
      ws.onmessage = (ev) => {
        const m = JSON.parse(String(ev.data)) as Message;
        if (m.live) {
          last = Math.max(last ?? m.seq, m.seq);
          live();
          status('live');
        } else if (m.reload) {
          last = m.seq;
          opts.onReload?.(m.seq);
        } else if (m.kind) {
          if (last !== undefined && m.seq <= last) return; // seen already
          if (last !== undefined && m.seq > last + 1) return ws.close(); // a gap: resume from `last`
          last = m.seq;
          opts.onChange(m as LiveChange);
        }
      };
      ws.onclose = () => resolve();
      ws.onerror = () => undefined; // a close follows
    });

  return (async () => {
    let backoff = 0;
    status('connecting');
    while (!stopped) {
      try {
        const { data } = await client.api.POST('/live/ticket', {
          body: { ...scope, ...(last === undefined ? {} : { since: last }) },
          signal: opts.signal,
        });
        last = data!.since; // what was asked, or (the first time, without it) where the server starts
        if (!started) {
          started = true;
          opts.onStart?.();
        }
        await connection(data!.url, () => (backoff = 0));
      } catch (err) {
        if (stopped) break;
        if (err instanceof ApiError && FINAL.has(err.status)) {
          status('ended');
          throw err;
        }
      }
      if (stopped) break;
      status('reconnecting');
      await sleep(backoff);
      backoff = Math.min(opts.maxBackoffMs ?? 5000, backoff ? backoff * 2 : 250);
    }
    status('ended');
  })();
}
