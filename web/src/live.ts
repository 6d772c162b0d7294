import { useEffect, useRef, useState } from 'preact/hooks';
import { followEnvironment, type LiveChange, type LiveStatus } from '@infracat/client/live';
import { client } from './api';

export type { LiveChange, LiveStatus } from '@infracat/client/live';

/**
 * The dashboard's live changes: one WebSocket per environment however many screens follow it (tables,
 * item pages, the topology), opened at the first `subscribe` and closed a moment after the last one leaves
 * (LINGER_MS: moving from one of the environment's screens to another keeps it, and its reads wait for nothing). Each
 * change reaches every subscriber once, in `seq` order; after a dropped connection it resumes from the
 * last `seq` seen (`followEnvironment` of the client package), so nothing is missed. `onReload` is called
 * when what was missed is no longer kept (a day offline): re-read what is shown.
 */

export interface LiveScope {
  projectId: string;
  envId: string;
}
type Handler = (change: LiveChange) => void;

interface Feed {
  handlers: Set<Handler>;
  reloads: Set<() => void>;
  stop: AbortController;
  /** Settles once the server follows the environment for this feed (its first ticket), or the attempt failed. */
  started: Promise<void>;
  /** Set while no screen follows it: it closes then, unless one comes back first. */
  closing?: ReturnType<typeof setTimeout>;
}

/** How long a feed no screen follows stays open, for the next screen of the same environment. */
const LINGER_MS = 10_000;

const feeds = new Map<string, Feed>();
const statusListeners = new Set<(s: LiveStatus) => void>();
let status: LiveStatus = 'ended';

function setStatus(s: LiveStatus) {
  status = s;
  for (const l of statusListeners) l(s);
}

/** Follows an environment's changes; answers the unsubscribe. */
export function subscribe(scope: LiveScope, handler: Handler, onReload?: () => void): () => void {
  let feed = feeds.get(scope.envId);
  clearTimeout(feed?.closing);
  if (feed) feed.closing = undefined;
  else {
    let start = () => {};
    const created: Feed = {
      handlers: new Set(),
      reloads: new Set(),
      stop: new AbortController(),
      started: new Promise((resolve) => (start = resolve)),
    };
    feed = created;
    feeds.set(scope.envId, created);
    followEnvironment(
      client,
      { project_id: scope.projectId, environment_id: scope.envId },
      {
        signal: created.stop.signal,
        onStart: start,
        onChange: (c) => {
          for (const h of created.handlers) h(c);
        },
        onReload: () => {
          for (const r of created.reloads) r();
        },
        onStatus: (s) => {
          // A first ticket refused or not answered: the screens read anyway (and follow once it reconnects).
          if (s === 'reconnecting' || s === 'ended') start();
          if (!created.stop.signal.aborted) setStatus(s);
        },
      },
    )
      .catch(() => setStatus('ended'))
      .finally(start);
  }
  feed.handlers.add(handler);
  if (onReload) feed.reloads.add(onReload);
  const mine = feed;
  return () => {
    mine.handlers.delete(handler);
    if (onReload) mine.reloads.delete(onReload);
    if (mine.handlers.size) return;
    mine.closing = setTimeout(() => {
      mine.stop.abort();
      feeds.delete(scope.envId);
      if (!feeds.size) setStatus('ended');
    }, LINGER_MS);
  };
}

/**
 * Waits, before a screen reads what it shows, until the environment's feed follows from a moment before
 * the read: then no change made in between is missed. It joins the feed for that wait (opening it when no
 * screen has yet; the screen's own `useLive` keeps it), so the order of a screen's hooks does not matter.
 * At once when the feed already follows.
 */
export async function following(scope: LiveScope): Promise<void> {
  const leave = subscribe(scope, () => {});
  try {
    await feeds.get(scope.envId)?.started;
  } finally {
    leave();
  }
}

/** The live channel's status (for the live/reconnecting indicator). */
export function useLiveStatus(): LiveStatus {
  const [s, set] = useState(status);
  useEffect(() => {
    statusListeners.add(set);
    set(status);
    return () => void statusListeners.delete(set);
  }, []);
  return s;
}

/** Follows an environment's changes while the component is shown (the latest `handler` is called). */
export function useLive(scope: LiveScope | undefined, handler: Handler, onReload?: () => void): void {
  const latest = useRef({ handler, onReload });
  latest.current = { handler, onReload };
  useEffect(() => {
    if (!scope) return;
    return subscribe(
      scope,
      (c) => latest.current.handler(c),
      () => latest.current.onReload?.(),
    );
  }, [scope?.projectId, scope?.envId]);
}

/**
 * A list of one kind with a change applied: a created item added, an updated one replaced (added when it
 * was not there: it came back, e.g. restored), a deleted one removed. `keep` says whether an item belongs
 * in this list (its filters); an updated item that no longer does leaves it.
 */
export function applyChange<T extends { id: string }>(
  list: T[] | undefined,
  change: LiveChange,
  kind: LiveChange['kind'],
  keep: (item: T) => boolean = () => true,
): T[] | undefined {
  if (!list || change.kind !== kind) return list;
  const rest = list.filter((i) => i.id !== change.id);
  if (change.op === 'deleted' || !change.item) return rest.length === list.length ? list : rest;
  const item = change.item as unknown as T;
  if (!keep(item)) return rest.length === list.length ? list : rest;
  const at = list.findIndex((i) => i.id === change.id);
  if (at < 0) return [...list, item];
  const next = [...list];
  next[at] = item;
  return next;
}

/**
 * For a form editing an item: a warning once the item changes (or goes) underneath, by whatever path;
 * the draft is kept (saving replaces the fields it sends). Undefined while nothing happened, or when
 * nothing is edited (`id` undefined: a new item).
 */
export function useChangedUnderneath(
  scope: LiveScope,
  kind: LiveChange['kind'],
  id: string | undefined,
  noun: string,
): string | undefined {
  const [warning, setWarning] = useState<string>();
  useLive(id ? scope : undefined, (c) => {
    if (c.kind !== kind || c.id !== id) return;
    setWarning(
      c.op === 'deleted'
        ? `This ${noun} was deleted while you were editing it.`
        : `This ${noun} was changed by someone else while you were editing it: saving replaces those fields with yours.`,
    );
  });
  return warning;
}
