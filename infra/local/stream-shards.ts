/** Shard iterators of a DynamoDB stream, lost and taken again: the local stack's reader and start:deployed's poller. */

/** A shard iterator that can no longer be read: expired, or pointing at records trimmed since (DynamoDB Local trims under load). */
const isLostIterator = (err: unknown): boolean =>
  ['ExpiredIteratorException', 'TrimmedDataAccessException'].includes((err as Error | undefined)?.name ?? '');

/**
 * Where a stream reader takes a shard's iterator (again): after the last record it handed on (`handed`), else, when
 * its iterator was lost to trimmed records (`lost`), from the oldest record kept; else where the reader starts.
 */
export function shardPositions() {
  const lastHanded = new Map<string, string>();
  const trimmed = new Set<string>();
  return {
    handed(shard: string, sequence: string | undefined) {
      if (sequence) lastHanded.set(shard, sequence);
    },
    lost(shard: string, err: unknown) {
      if ((err as Error).name !== 'TrimmedDataAccessException') return;
      trimmed.add(shard);
      lastHanded.delete(shard);
    },
    /** GetRecords on a shard's iterator (`get`); a lost one answers undefined after `dropped`: take the shard again. */
    async read<T>(shard: string, get: () => Promise<T>, dropped: (err: unknown) => void): Promise<T | undefined> {
      try {
        return await get();
      } catch (err) {
        if (!isLostIterator(err)) throw err;
        this.lost(shard, err);
        dropped(err);
        return undefined;
      }
    },
    start(shard: string, otherwise: 'LATEST' | 'TRIM_HORIZON') {
      const after = lastHanded.get(shard);
      if (after) return { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' as const, SequenceNumber: after };
      return { ShardIteratorType: trimmed.has(shard) ? ('TRIM_HORIZON' as const) : otherwise };
    },
  };
}
