import { useLiveStatus } from './live';

const LABEL = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…' } as const;

/** A small live/reconnecting indicator, shown while a screen follows its environment's changes. */
export function LiveIndicator() {
  const status = useLiveStatus();
  if (status === 'ended') return null;
  return (
    // Not a `status` role: a screen's own status line is what its readers look for first.
    <span class={`live-indicator ${status}`} aria-live="polite" data-live={status}>
      {LABEL[status]}
    </span>
  );
}
