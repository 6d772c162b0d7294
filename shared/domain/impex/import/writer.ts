import { keys } from '#db/keys';
import { keyId } from '#db/batch-get';
import { stagedWrite } from '#db/staged-write';
import { transact, type TransactStep } from '#db/transact';
import { DomainError } from '#shared/errors';
import type { AppContext } from '#shared/context';
import type { ImportError } from '../parse.ts';
import type { ImportPlan } from './plan.ts';
import type { Unit } from './units.ts';
import { freshPut, unitWrites, type ImportAudit } from './unit-writes.ts';
import { build, type Built } from './chunk.ts';

const TRANSACTION_ITEMS = 100;

/** Items a staged chunk writes by BatchWriteItem at most (its journal lists their keys: some 130 KB). */
export const STAGED_ITEMS = 2000;
/** Chunks of a phase in flight at once: the next one's items are written while the one before closes. */
const CHUNKS_IN_FLIGHT = 2;
/** Thrown into a chunk in flight when one before it stopped the import: it is undone and not applied. */
const STOPPED = new Error('an earlier chunk stopped the import');

/**
 * Writes units as they come, packed in order into chunks: creates (staged: at most STAGED_ITEMS new
 * items, and transactions of at most 100 items for their conditions) or updates (one transaction of
 * at most 100 items), a phase never sharing one and committing before the next starts (units of a
 * later phase wait until their phase is open). Two chunks of a phase are in flight while the next
 * is packed and built, closing in order; once one is refused, nothing more is written (a chunk in
 * flight is undone) and every later unit's items are marked not applied.
 */
export class Writer {
  private open = 0;
  private readonly waiting = new Map<number, Unit[]>();
  private chunk: Unit[] = [];
  /** The packed units' own writes, in order. */
  private writes: TransactStep[] = [];
  /** Transaction items the packed chunk takes (its own conditional writes and shared items), and items it writes by BatchWriteItem when staged. */
  private size = 0;
  private batched = 0;
  private shared = new Set<string>();
  /** Whose staged writes these are (the import's id: its retry undoes what an interrupted run left), and their journals' count. */
  private readonly owner: string;
  private journals = 0;
  /** The chunks in flight, oldest first (each settles after the one before: they close in order), and their phase. */
  private inFlight: Promise<void>[] = [];
  private flightPhase = -1;
  /** What a chunk in flight (or its progress callback) threw: thrown again by the next commit. */
  private failure: { error: unknown } | undefined;
  private connectionsVersion: number;
  private done = 0;
  stopped = false;
  /** Stopped by `halt` (a cancel), not by a refusal. */
  halted = false;
  /** Stopped because the custom field definitions changed since the plan checked the values (the import plans again). */
  definitionsChanged = false;
  readonly errors: ImportError[] = [];
  readonly notApplied = new Set<number>();

  private readonly plan: ImportPlan;
  private readonly ctx: AppContext;
  private readonly onProgress?: (done: number, total: number) => void | Promise<void>;
  private readonly audit?: ImportAudit;
  private readonly stagedItems: number;
  private readonly halt?: () => boolean;

  constructor(
    plan: ImportPlan,
    ctx: AppContext,
    onProgress?: (done: number, total: number) => void | Promise<void>,
    audit?: ImportAudit,
    stagedItems = STAGED_ITEMS,
    halt?: () => boolean,
  ) {
    this.plan = plan;
    this.ctx = ctx;
    this.onProgress = onProgress;
    this.audit = audit;
    this.stagedItems = stagedItems;
    this.halt = halt;
    this.connectionsVersion = plan.connectionsVersion;
    this.owner = audit?.importId ?? ctx.ids.newId();
  }

  async units(units: Unit[]) {
    for (const u of units) {
      if (u.phase === this.open) await this.add(u);
      else if (this.waiting.has(u.phase)) this.waiting.get(u.phase)!.push(u);
      else this.waiting.set(u.phase, [u]);
    }
  }

  async close(phase: number) {
    while (this.open <= phase) {
      this.open++;
      const waiting = this.waiting.get(this.open) ?? [];
      this.waiting.delete(this.open);
      for (const u of waiting) await this.add(u);
    }
  }

  /** Commits what is packed and waits for every transaction. */
  async finish() {
    await this.commit();
    await this.settled();
    for (const u of [...this.waiting.values()].flat()) this.markNotApplied([u]);
  }

  /** Whether the import stopped: refused, or halted at this chunk boundary. */
  private stopping(): boolean {
    if (!this.stopped && this.halt?.()) this.stopped = this.halted = true;
    return this.stopped;
  }

  private markNotApplied(units: Unit[]) {
    for (const u of units) for (const i of [u.item, ...(u.also ?? [])]) this.notApplied.add(i);
  }

  private async add(u: Unit) {
    if (this.stopping()) return this.markNotApplied([u]);
    const sharedKeys = [...new Set([...u.guards.map((g) => g.key), ...u.counters.map((c) => c.key)].map(keyId))];
    // Built once, stamped with the time it is packed. A create is staged: its fresh writes go by BatchWriteItem.
    const writes = unitWrites(u, this.ctx.clock.now().toISOString(), this.ctx, this.plan, this.audit);
    const batched = u.create ? writes.filter(freshPut).length : 0;
    const own = writes.length - batched;
    // Three items are kept: the environment's guard (or its counter, or the connections version), the hold on the
    // custom field definitions and a staged chunk's journal.
    const fits = () =>
      this.size + own + sharedKeys.filter((k) => !this.shared.has(k)).length + 3 <= TRANSACTION_ITEMS &&
      this.batched + batched <= this.stagedItems;
    if (this.chunk.length && (this.chunk[0].phase !== u.phase || !this.chunk[0].create !== !u.create || !fits())) {
      await this.commit();
      if (this.stopped) return this.markNotApplied([u]);
    }
    const fresh = sharedKeys.filter((k) => !this.shared.has(k));
    for (const k of fresh) this.shared.add(k);
    this.size += own + fresh.length;
    this.batched += batched;
    this.chunk.push(u);
    this.writes.push(...writes);
  }

  /** Builds the packed chunk's transaction and sends it once the one in flight has committed. */
  private async commit() {
    const chunk = this.chunk;
    const writes = this.writes;
    this.chunk = [];
    this.writes = [];
    this.size = 0;
    this.batched = 0;
    this.shared = new Set();
    if (!chunk.length) return;
    const built = build(chunk, writes, this.plan, this.ctx.clock.now().toISOString(), this.connectionsVersion);
    if (built.movesConnections) this.connectionsVersion++;
    // A phase starts once the one before has closed (parents before children).
    if (chunk[0].phase !== this.flightPhase) await this.settled();
    while (this.inFlight.length >= CHUNKS_IN_FLIGHT) await this.inFlight.shift();
    if (this.failure) await this.settled();
    if (this.stopping()) return this.markNotApplied(chunk);
    this.flightPhase = chunk[0].phase;
    // Caught here, thrown by the next commit: a rejection nobody awaits yet would end the process.
    this.inFlight.push(
      this.send(chunk, built, this.inFlight.at(-1)).catch((error) => void (this.failure ??= { error })),
    );
  }

  private async settled() {
    while (this.inFlight.length) await this.inFlight.shift();
    if (this.failure) throw this.failure.error;
  }

  /** Writes a chunk; it closes (commits) only after the chunk before it has, and not at all once the import stopped. */
  private async send(
    chunk: Unit[],
    { steps, staged, now, diagnose, definitionsChanged }: Built,
    before?: Promise<void>,
  ) {
    const turn = async () => {
      await before;
      if (this.stopping() || this.failure) throw STOPPED;
    };
    try {
      if (staged)
        await stagedWrite(
          {
            ...staged,
            journal: keys.stagedWrite(this.plan.projectId, this.plan.environmentId, this.owner, this.journals++),
            owner: this.owner,
            beforeClose: turn,
          },
          now,
        );
      else await turn().then(() => transact(steps!));
    } catch (err) {
      if (err === STOPPED) return this.markNotApplied(chunk);
      if (!(err instanceof DomainError)) throw err;
      if (err === definitionsChanged) {
        this.definitionsChanged = this.stopped = true;
        this.markNotApplied(chunk);
        return;
      }
      const refusal = diagnose.has(err) ? await diagnose.get(err)!() : err;
      this.errors.push({ path: '', line: null, message: String(refusal.detail) });
      this.stopped = true;
      this.markNotApplied(chunk);
      return;
    }
    this.done += chunk.length;
    await this.onProgress?.(this.done, this.plan.total);
  }
}
