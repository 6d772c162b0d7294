import { useEffect, useRef } from 'preact/hooks';
import type { TopologyData } from './graph';
import { type LiveChange, TopologyModel } from './live-changes';

/**
 * The open topology's change feed: `applyChange` hands a live change to the screen showing the
 * topology (nothing when none is open). The screen gathers what comes within a moment, applies it to
 * the data it shows then (live-changes.ts) and draws the result; a change its data cannot place makes it
 * read the topology again (If-None-Match: a 304 when nothing changed).
 */
let feed: ((change: LiveChange) => void) | undefined;

export function applyChange(change: LiveChange): void {
  feed?.(change);
}

/** Changes arriving this close together are drawn once. */
const GATHER_MS = 250;

export function useLiveTopology(
  data: TopologyData | undefined,
  setData: (data: TopologyData) => void,
  reload: () => Promise<TopologyData>,
): void {
  // The queue outlives each drawing: a change arriving while the last batch is being drawn waits for the
  // next flush instead of being dropped with the drawing it came after. Changes that come before the
  // first read's answer (the feed follows from before that read: live.ts `following`) wait for it.
  const latest = useRef({ data, setData, reload });
  latest.current = { data, setData, reload };
  const queue = useRef<{ kick(): void; drop(): void }>(undefined);
  useEffect(() => {
    let queued: LiveChange[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      timer = undefined;
      const { data, setData, reload } = latest.current;
      if (!data || !queued.length) return;
      const model = new TopologyModel(data);
      const placed = queued.map((c) => model.apply(c)).every(Boolean);
      queued = [];
      if (placed) setData(model.toData());
      else reload().then(setData, () => {});
    };
    queue.current = {
      kick: () => void (timer ??= setTimeout(flush, GATHER_MS)),
      drop: () => void (queued = []),
    };
    feed = (change) => {
      queued.push(change);
      queue.current?.kick();
    };
    // Tests and the bench hand changes in through the page.
    window.__topologyChange = applyChange;
    return () => {
      feed = undefined;
      queue.current = undefined;
      clearTimeout(timer);
    };
  }, []);
  // The first read answered: what waited for it is applied. A new read begun (another environment): what
  // waited was the last one's.
  useEffect(() => {
    if (data) queue.current?.kick();
    else queue.current?.drop();
  }, [data === undefined]);
}

declare global {
  interface Window {
    __topologyChange?: (change: LiveChange) => void;
  }
}
