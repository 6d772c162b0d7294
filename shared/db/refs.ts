import type { Key } from './batch-get.ts';
import type { TransactStep } from './transact.ts';
import type { DomainError } from '#shared/errors';
import { whileLiveStep, type Condition } from './live.ts';
import { counterStep } from './steps.ts';

/**
 * Items whose delete takes along what refers to them (a service's or server's connections, links
 * and hosted services; a chain's members; a group's subgroups; a member's roles) read those first,
 * then write. So
 * that nothing can be added between that read and the delete's commit (else a connection could
 * outlive its service), every write that adds a reference moves the item's `refs_version` on, in
 * its transaction, on condition that the item is live (`referenceStep`), and the delete's own write
 * holds only while the version is the one it read (`refsAsRead`): a reference added meanwhile fails
 * the delete, which reads again. A version that only grows, not a count: a count comes back to the
 * value read when one reference is added and another removed, the added one unread.
 */
/** The attribute; for an update that adds a reference in its own expression (`ADD #refs :one`, with `refsName`). */
export const REFS_VERSION = 'refs_version';
export const refsName = { '#refs': REFS_VERSION };

/** Counter moves of an item that also record a reference added to it (for a caller that builds its own counter step). */
export const withReference = (counts: Record<string, number>): Record<string, number> => ({
  ...counts,
  [REFS_VERSION]: 1,
});

/** A reference to `key` added (its counters moved by `counts`, within `max`): the item live, else `failWith`. */
export function referenceStep(
  key: Key,
  failWith: DomainError,
  counts: Record<string, number> = {},
  max?: Record<string, number>,
): TransactStep {
  return whileLiveStep(counterStep(key, withReference(counts), { max, failWith }), failWith);
}

/** The condition, for the delete of an item read as `item`, that no reference was added to it since. */
export const refsAsRead = (item: { refs_version?: number | null }): Condition =>
  item.refs_version
    ? { expression: '#refs = :refs', names: refsName, values: { ':refs': item.refs_version } }
    : { expression: 'attribute_exists(PK) AND attribute_not_exists(#refs)', names: refsName, values: {} };
