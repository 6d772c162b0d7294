import type { DomainError } from '#shared/errors';
import { keyId, type Key } from './batch-get.ts';
import { isLive, stillLiveStep, whileLiveStep, type Condition } from './live.ts';
import { withReference } from './refs.ts';
import { counterStep, passesMax } from './steps.ts';
import type { TransactStep } from './transact.ts';

/**
 * Counter moves on shared items (a project's, an environment's, an account's counters), the one
 * engine for writes that move them for many resources at once (archive and restore batches, an
 * import's chunks). A transaction touches an item once, so the moves of its writes on one item are
 * merged into one step, and a limit is checked on their sum, race-free, in that transaction.
 */

/** The most a counter may reach (null: unlimited) and the refusal past it (billing's `quotaLimit` gives a quota's). */
export interface CounterLimit {
  max: number | null;
  refusal: DomainError;
}

/** What one write moves on a shared item. `Gone` is the caller's account of a refusal when the item is no longer live. */
export interface CounterMove<Gone = unknown> {
  key: Key;
  deltas: Record<string, number>;
  /** Limits of incremented counters, in the order a refusal names them. */
  limits?: Record<string, CounterLimit>;
  /** The item must be live while its counters move; otherwise, what the caller refuses with (see `whyRefused`). */
  whileLive?: Gone;
  /** The move adds a reference to its item, so that its delete misses none (db/refs.ts). */
  reference?: boolean;
}

/** The moves on the same items, summed per item (first seen first): limits joined, the first `whileLive` kept, a reference kept. */
export function mergeMoves<G>(moves: CounterMove<G>[]): CounterMove<G>[] {
  const byItem = new Map<string, CounterMove<G>>();
  for (const move of moves) {
    const id = keyId(move.key);
    const known = byItem.get(id);
    if (!known) {
      byItem.set(id, { ...move, deltas: { ...move.deltas }, limits: { ...move.limits } });
      continue;
    }
    for (const [counter, delta] of Object.entries(move.deltas))
      known.deltas[counter] = (known.deltas[counter] ?? 0) + delta;
    Object.assign(known.limits!, move.limits);
    known.whileLive ??= move.whileLive;
    known.reference ||= move.reference;
  }
  return [...byItem.values()];
}

/**
 * The one step of a (merged) move: its counters, each increment within its limit, the item live
 * when `whileLive` is set; only the liveness check when nothing moves (undefined when nothing is to
 * be checked either). Refused with `failWith` for any reason: `whyRefused` tells which.
 */
export function moveStep(move: CounterMove, failWith: DomainError): TransactStep | undefined {
  const deltas = Object.fromEntries(Object.entries(move.deltas).filter(([, d]) => d !== 0));
  const guarded = move.whileLive !== undefined;
  if (!Object.keys(deltas).length) return guarded ? stillLiveStep(move.key, failWith) : undefined;
  const max = Object.fromEntries(Object.entries(move.limits ?? {}).map(([counter, l]) => [counter, l.max]));
  const step = counterStep(move.key, move.reference ? withReference(deltas) : deltas, { max, failWith });
  return guarded ? whileLiveStep(step, failWith) : step;
}

/** The step that takes a committed move back (an interrupted staged write's undo): its counters moved the other way. */
export const undoMoveStep = (move: CounterMove): TransactStep =>
  counterStep(move.key, Object.fromEntries(Object.entries(move.deltas).map(([counter, d]) => [counter, -d])));

/**
 * Why a move's step was refused, from its item as read afterwards: 'gone' (it had to be live and is
 * not), the refusal of the first limit its sum passes, or undefined (none of these: a lost race).
 */
export function whyRefused(
  move: CounterMove,
  item: Record<string, unknown> | undefined,
): 'gone' | DomainError | undefined {
  if (move.whileLive !== undefined && !isLive(item)) return 'gone';
  for (const [counter, limit] of Object.entries(move.limits ?? {})) {
    if (passesMax(Number(item?.[counter] ?? 0), move.deltas[counter] ?? 0, limit.max)) return limit.refusal;
  }
  return undefined;
}

/**
 * The condition that a counter still holds the count read (a missing counter counts 0): a write that
 * moves what was counted (an environment's services off its project) holds only while nothing moved it.
 */
export function countIs(counter: string, count: number): Condition {
  const name = `#count_${counter}`;
  const value = `:count_${counter}`;
  return {
    expression: count === 0 ? `(attribute_not_exists(${name}) OR ${name} = ${value})` : `${name} = ${value}`,
    names: { [name]: counter },
    values: { [value]: count },
  };
}
