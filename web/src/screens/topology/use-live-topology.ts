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
  // next flush instead of being dropped with the drawing it came after.
  const latest = useRef({ data, setData, reload });
  latest.current = { data, setData, reload };
  useEffect(() => {
    let queued: LiveChange[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      timer = undefined;
      const { data, setData, reload } = latest.current;
      // Before the first read there is nothing to apply to: that read brings the topology as it is.
      if (!data) return void (queued = []);
      const model = new TopologyModel(data);
      const placed = queued.map((c) => model.apply(c)).every(Boolean);
      queued = [];
      if (placed) setData(model.toData());
      else reload().then(setData, () => {});
    };
    feed = (change) => {
      queued.push(change);
      timer ??= setTimeout(flush, GATHER_MS);
    };
    // Tests and the bench hand changes in through the page.
    window.__topologyChange = applyChange;
    return () => {
      feed = undefined;
      clearTimeout(timer);
    };
  }, []);
}

declare global {
  interface Window {
    __topologyChange?: (change: LiveChange) => void;
  }
}
