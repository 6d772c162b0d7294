import { keyId, type Key } from '#db/batch-get';
import { getItem } from '#db/items';
import { isLive, stillLiveStep, whileLiveStep } from '#db/live';
import { counterStep } from '#db/steps';
import { concurrentChange, transact, type TransactStep } from '#db/transact';
import { DomainError } from '#shared/errors';
import { quotaReached, type Plan, type Quota } from '#domain/billing';
import type { ArchivableKind } from './selection';

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

/** A limit on one counter of a shared item: past `max`, the quota's refusal. */
export interface CounterLimit {
  plan: Plan;
  quota: Quota;
  max: number | null;
}

/** Counters a unit moves on a shared item (project, environment, account). */
export interface CounterMove {
  key: Key;
  deltas: Record<string, number>;
  /** Limits of incremented counters (restore), in the order a refusal names them. */
  limits?: Record<string, CounterLimit>;
  /** The item must be live while the counters move; otherwise the refusal this gives for the item as it is now. */
  whileLive?: (item: Record<string, unknown> | undefined) => DomainError;
}

export interface Unit {
  kind: ArchivableKind;
  id: string;
  name: string;
  /** Writes on items no other unit touches (the resource itself, its marker). */
  writes: TransactStep[];
  shared: CounterMove[];
  /** When `when` refuses the unit (an environment whose service count moved meanwhile), it is read again and retried. */
  refresh?: { when: DomainError; rebuild: () => Promise<Unit> };
}

export interface RunResult {
  done: Unit[];
  refused: { unit: Unit; error: DomainError }[];
}

const TRANSACTION_ITEMS = 100;
const REFRESH_ATTEMPTS = 8;

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
    w.forEach((k) => written.add(k));
    s.forEach((k) => shared.add(k));
  }
  if (current.length) chunks.push(current);
  return chunks;
}

/** The counter moves of several units on the same items, summed per item. */
function merge(moves: CounterMove[]): CounterMove[] {
  const byItem = new Map<string, CounterMove>();
  for (const move of moves) {
    const id = keyId(move.key);
    const known = byItem.get(id);
    if (!known) {
      byItem.set(id, { ...move, deltas: { ...move.deltas }, limits: { ...move.limits } });
      continue;
    }
    for (const [counter, delta] of Object.entries(move.deltas)) known.deltas[counter] = (known.deltas[counter] ?? 0) + delta;
    Object.assign(known.limits!, move.limits);
    known.whileLive ??= move.whileLive;
  }
  return [...byItem.values()];
}

/** One step for a shared item: its counters (each increment within its limit), or only the liveness check when nothing moves. */
function sharedStep(move: CounterMove, failWith: DomainError): TransactStep | undefined {
  const deltas = Object.fromEntries(Object.entries(move.deltas).filter(([, d]) => d !== 0));
  if (!Object.keys(deltas).length) return move.whileLive ? stillLiveStep(move.key, failWith) : undefined;
  const max = Object.fromEntries(Object.entries(move.limits ?? {}).map(([counter, l]) => [counter, l.max]));
  const step = counterStep(move.key, deltas, { max, failWith });
  return move.whileLive ? whileLiveStep(step, failWith) : step;
}

/** Why a shared item's step failed, read from the item as it is now: gone, a limit, or a lost race. */
async function diagnose(move: CounterMove): Promise<DomainError> {
  const item = await getItem(move.key);
  if (move.whileLive && !isLive(item)) return move.whileLive(item);
  for (const [counter, limit] of Object.entries(move.limits ?? {})) {
    const delta = move.deltas[counter] ?? 0;
    if (delta > 0 && limit.max !== null && Number(item?.[counter] ?? 0) + delta > limit.max) return quotaReached(limit.plan, limit.quota, limit.max);
  }
  return concurrentChange();
}

/** One transaction of whole units; a failed shared step is answered with its reason. */
async function commitOnce(units: Unit[]): Promise<void> {
  const sentinels = new Map<DomainError, CounterMove>();
  const sharedSteps = merge(units.flatMap((u) => u.shared)).flatMap((move) => {
    const failWith = concurrentChange();
    sentinels.set(failWith, move);
    return sharedStep(move, failWith) ?? [];
  });
  try {
    await transact([...units.flatMap((u) => u.writes), ...sharedSteps]);
  } catch (err) {
    const move = err instanceof DomainError ? sentinels.get(err) : undefined;
    throw move ? await diagnose(move) : err;
  }
}

/** Commits units as one transaction; a unit refused as stale is read again and the whole transaction retried. */
async function commit(units: Unit[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await commitOnce(units);
    } catch (err) {
      const stale = units.findIndex((u) => u.refresh && u.refresh.when === err);
      if (stale < 0 || attempt >= REFRESH_ATTEMPTS) throw err;
      units = [...units];
      units[stale] = await units[stale].refresh!.rebuild();
    }
  }
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
