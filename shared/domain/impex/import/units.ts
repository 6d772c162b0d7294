import type { Key } from '#db/batch-get';
import type { TransactStep } from '#db/transact';
import type { Listable, Listing } from '#domain/catalog';

export type CreateKind = 'group' | 'subgroup' | 'network' | 'floor' | 'service' | 'link' | 'connection' | 'chain';

/** A counter moved on a shared item (project, environment, parent group), merged per item in a transaction. */
export interface CounterMove {
  key: Key;
  counter: string;
  units: number;
  /** The service limit applies to this counter. */
  serviceQuota?: boolean;
  /** The item must stay live (the environment, a parent group); otherwise `gone`. */
  whileLive?: string;
  /** The counter may not pass this (a chain's members); otherwise `full`. */
  max?: { value: number; full: string };
  /** The move adds a reference to its item (a chain's member, a group's subgroup): its delete then misses none (db/refs.ts). */
  reference?: boolean;
}

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
    key: Key; changes: Record<string, unknown>; gone: string; audit?: { id: string; head: string | null; before: Record<string, unknown> };
    hints?: { id: string; service_floor_id: string | null; group_id: string | null; subgroup_id: string | null };
    /** A listed entity's listing writes (issue 26) and the condition that keeps them exact (catalog/listing.ts). */
    listing?: { steps: TransactStep[]; asRead?: ReturnType<Listing<Listable>['asRead']> };
  };
  /**
   * Items that must still be live when this unit commits (what it refers to), with the refusal
   * otherwise; `edge`: the unit adds an edge to it (a connection or link end, a service's server),
   * which moves its refs version on so that its delete misses none (db/refs.ts).
   */
  guards: { key: Key; gone: string; edge?: boolean }[];
  counters: CounterMove[];
}
