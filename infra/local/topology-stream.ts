import { AsyncResource } from 'node:async_hooks';
import { tapWrites } from '#shared/clients/write-tap';
import type { Clock } from '#shared/context';
import { errorFields, log } from '#shared/log';
import { applyTopologyChanges, topologyChangesOf, type TopologyChange } from '#domain/catalog';

/**
 * The cloud's table stream into the topology's keeper, locally: the keys of every write of this
 * process (shared/clients/write-tap.ts) are gathered, and applied to the environments' snapshots in
 * batches, one batch at a time, off the writes' path: on the stack's timer (`npm start`), at every
 * drain, and before a topology read of this process (`settleTaps`: locally a read sees the writes that
 * came before it, as the stream does within a moment in the cloud). A batch that fails is left to the
 * repair: its head stays behind and the next read rebuilds the snapshot.
 */
export function startTopologyStream(clock: Clock | undefined, pollMs: number) {
  let pending: TopologyChange[] = [];
  let running: Promise<void> = Promise.resolve();
  // Runs outside whichever request's context wrote last (its write gate, its log scope).
  const detached = AsyncResource.bind(() => {
    running = running.then(async () => {
      while (pending.length) {
        const batch = pending;
        pending = [];
        await applyTopologyChanges(batch, clock?.now() ?? new Date()).catch((err) =>
          log.error('topology changes not applied; the next read repairs the snapshot', errorFields(err)),
        );
      }
    });
    return running;
  });
  const untap = tapWrites({
    written: (keys) => {
      const changes = topologyChangesOf(keys);
      if (changes.length) pending.push(...changes);
    },
    settle: () => (pending.length ? detached() : running),
  });
  const timer = pollMs ? setInterval(() => pending.length && void detached(), pollMs).unref() : undefined;
  return {
    settle: () => detached(),
    stop() {
      clearInterval(timer);
      untap();
    },
  };
}
