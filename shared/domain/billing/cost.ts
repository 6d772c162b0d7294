/**
 * The documented rate card (docs/decisions.md): list prices in USD cents per month, applied to the
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

/** Monthly cost of one server: its unit price times its instances (a missing instance count is 1), rounded to whole cents. */
export function serverUsage(f: ServerSpec): Usage {
  const instances = f.instances ?? 1;
  const cpu = (f.cpu ?? 0) * instances;
  const memory_mb = (f.memory_mb ?? 0) * instances;
  const storage_gb = (f.storage_gb ?? 0) * instances;
  const monthly_cents = Math.round(
    cpu * RATE_CARD.cpu_cents_per_vcpu_month + (memory_mb / 1024) * RATE_CARD.memory_cents_per_gb_month + storage_gb * RATE_CARD.storage_cents_per_gb_month,
  );
  return { servers: 1, instances, cpu, memory_mb, storage_gb, monthly_cents };
}

/** The sum of several usages (all zeros for none). */
export const sumUsage = (rows: Usage[]): Usage =>
  rows.reduce((a, r) => ({
    servers: a.servers + r.servers, instances: a.instances + r.instances, cpu: a.cpu + r.cpu, memory_mb: a.memory_mb + r.memory_mb,
    storage_gb: a.storage_gb + r.storage_gb, monthly_cents: a.monthly_cents + r.monthly_cents,
  }), { servers: 0, instances: 0, cpu: 0, memory_mb: 0, storage_gb: 0, monthly_cents: 0 });
