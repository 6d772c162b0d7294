import { keyId, type Key } from '#db/batch-get';
import { getItem } from '#db/items';
import { mergeMoves, moveStep, whyRefused, type CounterMove } from '#db/counter-moves';
import { concurrentChange, transact, type TransactStep } from '#db/transact';
import { onContention } from '#db/retry';
import { DomainError } from '#shared/errors';
import type { ArchivableKind } from './selection.ts';

/**
 * How archive and restore write many resources: each resource is a `Unit` (its own writes plus the
 * counters it moves on shared items: project, environment, account). Units are packed, in order,
 * into transactions of at most 100 items, a unit never split; the counters several units move on
 * one item become one step (a transaction touches an item once), so the limits are checked on the
 * sum, race-free, in the same transaction as the writes.
 *
 * A selection that fits one transaction is all-or-nothing: a refusal is thrown and nothing is
 * written. A larger one is committed chunk by chunk in order; a refused chunk is retried resource
 * by resource, so exactly the resources that fit are written and each one refused is reported with
 * its own refusal.
 */

/** Counters a unit moves on a shared item (project, environment, account); when it must be live, the refusal for the item as it is now. */
export type SharedMove = CounterMove<(item: Record<string, unknown> | undefined) => DomainError>;

export interface Unit {
  kind: ArchivableKind;
  id: string;
  name: string;
  /** Writes on items no other unit touches (the resource itself, its marker). */
  writes: TransactStep[];
  shared: SharedMove[];
  /** When `when` refuses the unit (an environment whose service count moved meanwhile), it is read again and retried. */
  refresh?: { when: DomainError; rebuild: () => Promise<Unit> };
}

export interface RunResult {
  done: Unit[];
  refused: { unit: Unit; error: DomainError }[];
}

const TRANSACTION_ITEMS = 100;

/** The item a transaction step writes or checks. */
function keyOfStep(step: TransactStep): string {
  const key = step.Put?.Item ?? step.Update?.Key ?? step.Delete?.Key ?? step.ConditionCheck?.Key;
  return keyId(key as Key);
}

/** Units in order, in chunks: no item written by one unit is touched by another in the same chunk; at most 100 items each. */
export function pack(units: Unit[]): Unit[][] {
  const chunks: Unit[][] = [];
  let current: Unit[] = [];
  let written = new Set<string>();
  let shared = new Set<string>();
  for (const unit of units) {
    const w = unit.writes.map(keyOfStep);
    const s = unit.shared.map((m) => keyId(m.key));
    const size = new Set([...written, ...shared, ...w, ...s]).size;
    const clash = w.some((k) => written.has(k) || shared.has(k)) || s.some((k) => written.has(k));
    if (current.length && (clash || size > TRANSACTION_ITEMS)) {
      chunks.push(current);
      current = [];
      written = new Set();
      shared = new Set();
    }
    current.push(unit);
    for (const k of w) written.add(k);
    for (const k of s) shared.add(k);
  }
  if (current.length) chunks.push(current);
  return chunks;
}

/** Why a shared item's step failed, read from the item as it is now: gone, a limit, or a lost race. */
async function diagnose(move: SharedMove): Promise<DomainError> {
  const item = await getItem(move.key);
  const why = whyRefused(move, item);
  return why === 'gone' ? move.whileLive!(item) : (why ?? concurrentChange());
}

/** One transaction of whole units; a failed shared step is answered with its reason. */
async function commitOnce(units: Unit[]): Promise<void> {
  const sentinels = new Map<DomainError, SharedMove>();
  const sharedSteps = mergeMoves(units.flatMap((u) => u.shared)).flatMap((move) => {
    const failWith = concurrentChange();
    sentinels.set(failWith, move);
    return moveStep(move, failWith) ?? [];
  });
  try {
    await transact([...units.flatMap((u) => u.writes), ...sharedSteps]);
  } catch (err) {
    const move = err instanceof DomainError ? sentinels.get(err) : undefined;
    throw move ? await diagnose(move) : err;
  }
}

/**
 * Commits units as one transaction; a unit refused as stale is read again and the whole transaction
 * retried, as a lost race (`onContention`).
 */
async function commit(units: Unit[]): Promise<void> {
  const staleUnit = (err: unknown) => units.findIndex((u) => u.refresh && u.refresh.when === err);
  let refused: unknown;
  await onContention(
    async (attempt) => {
      if (attempt > 1) {
        const stale = staleUnit(refused);
        units = units.with(stale, await units[stale].refresh!.rebuild());
      }
      try {
        await commitOnce(units);
      } catch (err) {
        refused = err;
        throw err;
      }
    },
    (err) => staleUnit(err) >= 0,
  );
}

/** Writes the units (see the top of this file); throws the first refusal when nothing at all could be written. */
export async function runUnits(units: Unit[]): Promise<RunResult> {
  const chunks = pack(units);
  if (chunks.length <= 1) {
    if (chunks.length) await commit(chunks[0]);
    return { done: units, refused: [] };
  }
  const result: RunResult = { done: [], refused: [] };
  for (const chunk of chunks) {
    try {
      await commit(chunk);
      result.done.push(...chunk);
      continue;
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
    }
    for (const unit of chunk) {
      try {
        await commit([unit]);
        result.done.push(unit);
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        result.refused.push({ unit, error: err });
      }
    }
  }
  if (!result.done.length && result.refused.length) throw result.refused[0].error;
  return result;
}
