/**
 * The documented rate card (docs/decisions/0019-cost-estimate.md): list prices in USD cents per month, applied to the
 * servers' flat specification (cpu, memory_mb, storage_gb) times their instances.
 */
export const RATE_CARD = {
  cpu_cents_per_vcpu_month: 1500,
  memory_cents_per_gb_month: 400,
  storage_cents_per_gb_month: 10,
} as const;

/** What pricing reads of a server: its flat specification and instance count. */
export interface ServerSpec {
  cpu?: number | null;
  memory_mb?: number | null;
  storage_gb?: number | null;
  instances?: number | null;
}

/** Resources and monthly cost of one server or, summed, of many. */
export interface Usage {
  servers: number;
  instances: number;
  cpu: number;
  memory_mb: number;
  storage_gb: number;
  monthly_cents: number;
}

/**
 * The largest specification a server may declare (the floors' schema enforces it; pricing clamps
 * older stored values to it): 4,096 vCPUs, 64 TiB of memory, 1 PiB of storage, 10,000 instances.
 * One server then costs at most 428,441,600,000 cents a month, an exact integer (memory is priced
 * as `memory_mb * 400 / 1024` on integers below 2^53 and rounded once).
 */
export const SERVER_SPEC_MAX = { cpu: 4_096, memory_mb: 67_108_864, storage_gb: 1_048_576, instances: 10_000 } as const;

/** A stored figure as pricing reads it: an integer from 0 to its maximum (missing or malformed: the fallback). */
const bounded = (v: number | null | undefined, max: number, fallback: number) =>
  typeof v === 'number' && Number.isFinite(v) ? Math.min(max, Math.max(0, Math.floor(v))) : fallback;

/**
 * Monthly cost of one server: its unit price times its instances (a missing instance count is 1),
 * rounded to whole cents. Every figure is a safe integer (see SERVER_SPEC_MAX).
 */
export function serverUsage(f: ServerSpec): Usage {
  const instances = bounded(f.instances, SERVER_SPEC_MAX.instances, 1);
  const cpu = bounded(f.cpu, SERVER_SPEC_MAX.cpu, 0) * instances;
  const memory_mb = bounded(f.memory_mb, SERVER_SPEC_MAX.memory_mb, 0) * instances;
  const storage_gb = bounded(f.storage_gb, SERVER_SPEC_MAX.storage_gb, 0) * instances;
  const monthly_cents =
    cpu * RATE_CARD.cpu_cents_per_vcpu_month +
    Math.round((memory_mb * RATE_CARD.memory_cents_per_gb_month) / 1024) +
    storage_gb * RATE_CARD.storage_cents_per_gb_month;
  return { servers: 1, instances, cpu, memory_mb, storage_gb, monthly_cents };
}

/**
 * Sums stay safe integers whatever the number of servers: a sum that would pass
 * Number.MAX_SAFE_INTEGER (over 21,000 servers all at the maximum) stops there.
 */
const add = (a: number, b: number) => Math.min(Number.MAX_SAFE_INTEGER, a + b);

/** The sum of several usages (all zeros for none). */
export const sumUsage = (rows: Usage[]): Usage =>
  rows.reduce(
    (a, r) => ({
      servers: add(a.servers, r.servers),
      instances: add(a.instances, r.instances),
      cpu: add(a.cpu, r.cpu),
      memory_mb: add(a.memory_mb, r.memory_mb),
      storage_gb: add(a.storage_gb, r.storage_gb),
      monthly_cents: add(a.monthly_cents, r.monthly_cents),
    }),
    { servers: 0, instances: 0, cpu: 0, memory_mb: 0, storage_gb: 0, monthly_cents: 0 },
  );
