import type { Key } from '#db/batch-get';
import type { CounterMove } from '#db/counter-moves';
import type { TransactStep } from '#db/transact';
import type { Listable, Listing } from '#domain/catalog';

export type CreateKind = 'group' | 'subgroup' | 'network' | 'floor' | 'service' | 'link' | 'connection' | 'chain';

/** One entity's writes: an entry of the plan. Plain data (no timestamps: apply stamps them). */
export interface Unit {
  /** Index into the report's items. */
  item: number;
  /** Order of application: a phase's units commit before the next phase starts (parents before children, networks before holders). */
  phase: number;
  create?: { kind: CreateKind; fields: Record<string, unknown>; members?: Record<string, unknown>[] };
  /** More items of the report this unit writes (a new chain's first members). */
  also?: number[];
  update?: {
    key: Key;
    changes: Record<string, unknown>;
    gone: string;
    audit?: { id: string; head: string | null; before: Record<string, unknown> };
    hints?: { id: string; service_floor_id: string | null; group_id: string | null; subgroup_id: string | null };
    /** A listed entity's listing writes and the condition that keeps them exact (catalog/listing.ts). */
    listing?: { steps: TransactStep[]; asRead?: ReturnType<Listing<Listable>['asRead']> };
  };
  /**
   * Items that must still be live when this unit commits (what it refers to), with the refusal
   * otherwise; `edge`: the unit adds an edge to it (a connection or link end, a service's server),
   * which moves its refs version on so that its delete misses none (db/refs.ts).
   */
  guards: { key: Key; gone: string; edge?: boolean }[];
  /**
   * Counters moved on shared items (project, environment, parent group, chain), merged per item in
   * a chunk; `whileLive` is the refusal's detail when the item is gone (the environment, a parent).
   */
  counters: CounterMove<string>[];
}
