import { createHash } from 'node:crypto';
import { retryWhenStale, transact } from '#db/transact';
import { getItem } from '#db/items';
import { isLive } from '#db/live';
import type { AppContext } from '#shared/context';
import {
  auditedFloor,
  floorCreatedStep,
  readCatalogue,
  defaultValues,
  catalogueUnchangedStep,
  floorEntity,
  floorFieldsSteps,
  floorKey,
  newFloorSteps,
  storedFloorsOf,
  type Floor,
} from '#domain/catalog';
import { changeAudit, creationAudit, type AuditActor } from '#shared/audit';
import { envLiveCheck } from '#domain/tenancy';
import { ALL_REGIONS, type DiscoveredInstance, type Listing } from './providers/types.ts';
import type { CloudAccount, RunCounts } from './entities.ts';

/**
 * Writes a scan onto the account's floors. A floor is the account's when its `cloud_account_id` is
 * the account's id, and it matches an instance by `provider_instance_id` (never by name): matched
 * floors are updated, new instances become floors (`floor.created`), and a floor of the account
 * that a successful listing of its scope no longer shows is flagged `missing_since` (kept, with its
 * `last_seen_at`). A failed scope flags nothing. Hand-made floors (no account) are never read for
 * matching nor written. Deleted or archived floors of the account are left as they are.
 */

/**
 * A discovered floor's id follows from (account, instance): a duplicate delivery of the job racing
 * the first cannot create a second floor for the same instance (the put of an existing id fails).
 */
export function discoveredFloorId(accountId: string, instanceId: string): string {
  const h = createHash('sha256').update(`${accountId}#${instanceId}`).digest('hex');
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const fieldsOf = (account: CloudAccount, i: DiscoveredInstance): Partial<Floor> => ({
  hostname: i.hostname,
  provider: account.provider,
  provider_region: i.region,
  provider_zone: i.zone,
  provider_instance_id: i.instance_id,
  ip_address: i.ip_address,
  ip_addresses: i.ip_addresses,
  cpu: i.cpu,
  memory_mb: i.memory_mb,
  storage_gb: i.storage_gb,
  tags: i.tags,
});

/** Who a run's entries name (the account that started it), the run's id on each, and the owner's plan's retention. */
export interface DiscoveryAudit {
  runId: string;
  actor: AuditActor;
  days: number | null;
}

/** A floor's change by a run, with its entry (the floor's latest) in the same transaction. */
function floorChangeSteps(ctx: AppContext, floor: Floor, fields: Partial<Floor>, audit?: DiscoveryAudit) {
  if (!audit) return floorFieldsSteps(floor, fields);
  const entry = changeAudit(
    ctx,
    'floor',
    'update',
    floor,
    { before: auditedFloor(floor), after: auditedFloor({ ...floor, ...fields }) },
    audit.days,
    {
      actor: audit.actor,
      summary: { discovery_run_id: audit.runId },
    },
  );
  return [...floorFieldsSteps(floor, { ...fields, audit_head: entry.head }), ...entry.steps];
}

/**
 * Runs `write` on a floor as read, and again on the floor read anew while its write went stale (a
 * listed field changed meanwhile: its listing item, catalog/listing.ts); `undefined` once the floor
 * is deleted or archived (left as it is, as the scan leaves such floors).
 */
async function onFreshFloor<T>(read: Floor, write: (floor: Floor) => Promise<T>): Promise<T | undefined> {
  let first = true;
  return retryWhenStale(async () => {
    let floor = read;
    if (!first) {
      const again = await getItem<Record<string, unknown>>(floorKey(read));
      if (!isLive(again)) return undefined;
      floor = floorEntity.decode(again!);
    }
    first = false;
    return write(floor);
  });
}

/** Writes what differs between a matched floor and its instance (or only the sighting); whether it changed. */
async function updateFromInstance(
  ctx: AppContext,
  read: Floor,
  wanted: Partial<Floor>,
  now: string,
  audit?: DiscoveryAudit,
): Promise<boolean> {
  const changed = await onFreshFloor(read, async (floor) => {
    const changes = Object.fromEntries(
      Object.entries(wanted).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(floor[k as keyof Floor])),
    );
    const changed = Object.keys(changes).length > 0;
    // Only a change of what the floor shows is an entry; a sighting (last_seen_at) alone is not.
    await transact(
      changed
        ? floorChangeSteps(ctx, floor, { ...changes, last_seen_at: now, updated_at: now }, audit)
        : floorFieldsSteps(floor, { last_seen_at: now }),
    );
    return changed;
  });
  return changed ?? false;
}

/** Flags a floor its instance's scope no longer shows (once: a floor flagged meanwhile keeps its flag). */
const flagMissing = (ctx: AppContext, read: Floor, now: string, audit?: DiscoveryAudit) =>
  onFreshFloor(read, async (floor) => {
    if (!floor.missing_since)
      await transact(floorChangeSteps(ctx, floor, { missing_since: now, updated_at: now }, audit));
  });

const scopeOf = (account: CloudAccount, floor: Floor) =>
  account.provider === 'aws' ? (floor.provider_region ?? '') : ALL_REGIONS;

export async function applyScan(
  ctx: AppContext,
  account: CloudAccount,
  listings: Listing[],
  onProgress: (done: number, total: number) => Promise<void>,
  audit?: DiscoveryAudit,
): Promise<RunCounts> {
  const floors = (await storedFloorsOf(account.project_id, account.environment_id)).filter(
    (f) => f.cloud_account_id === account.id,
  );
  const byInstance = new Map(floors.filter((f) => f.provider_instance_id).map((f) => [f.provider_instance_id!, f]));
  // A floor whose provider_instance_id was edited by hand is still its instance's (its id says so): matched and restored.
  const byId = new Map(floors.map((f) => [f.id, f]));
  const instances = listings.flatMap((l) => (l.ok ? l.instances : []));
  const counts: RunCounts = { found: instances.length, created: 0, updated: 0, unchanged: 0, missing: 0 };
  const seen = new Set<string>();
  let done = 0;
  for (const instance of instances) {
    if (seen.has(instance.instance_id)) continue;
    seen.add(instance.instance_id);
    const now = ctx.clock.now().toISOString();
    const wanted = { ...fieldsOf(account, instance), missing_since: null };
    const floor = byInstance.get(instance.instance_id) ?? byId.get(discoveredFloorId(account.id, instance.instance_id));
    if (!floor) {
      await createFloor(ctx, account, wanted, now, audit);
      counts.created++;
    } else if (!isLive(floor)) {
      counts.unchanged++;
    } else {
      if (await updateFromInstance(ctx, floor, wanted, now, audit)) counts.updated++;
      else counts.unchanged++;
    }
    done++;
    if (done % 25 === 0) await onProgress(done, instances.length);
  }
  const completeScopes = new Set(listings.filter((l) => l.ok).map((l) => l.scope));
  const matched = new Set([...seen].map((id) => discoveredFloorId(account.id, id)));
  for (const floor of floors) {
    if (!isLive(floor) || !floor.provider_instance_id || seen.has(floor.provider_instance_id) || matched.has(floor.id))
      continue;
    if (!completeScopes.has(scopeOf(account, floor))) continue;
    counts.missing++;
    if (floor.missing_since) continue;
    await flagMissing(ctx, floor, ctx.clock.now().toISOString(), audit);
  }
  await onProgress(done, instances.length);
  return counts;
}

/**
 * A new floor with the custom field defaults as they are when it is written: held on the catalogue's
 * version read, and written again from a new read when a definition changed meanwhile (a lost race
 * fails neither the floor nor the run).
 */
const createFloor = (
  ctx: AppContext,
  account: CloudAccount,
  fields: Partial<Floor>,
  now: string,
  audit?: DiscoveryAudit,
) => retryWhenStale(() => createFloorOnce(ctx, account, fields, now, audit));

async function createFloorOnce(
  ctx: AppContext,
  account: CloudAccount,
  fields: Partial<Floor>,
  now: string,
  audit?: DiscoveryAudit,
) {
  const catalogue = await readCatalogue(account.project_id);
  const floor = floorEntity.create({
    ...fields,
    custom_fields: defaultValues(catalogue, 'service_floor'),
    id: discoveredFloorId(account.id, fields.provider_instance_id!),
    project_id: account.project_id,
    environment_id: account.environment_id,
    floor_type: 'vm',
    cloud_account_id: account.id,
    last_seen_at: now,
    created_at: now,
    updated_at: now,
  });
  const entry = audit
    ? creationAudit(ctx, 'floor', floor, auditedFloor(floor), {
        actor: audit.actor,
        summary: { discovery_run_id: audit.runId },
      })
    : [];
  await transact([
    ...newFloorSteps(floor),
    envLiveCheck(floor.project_id, floor.environment_id),
    catalogueUnchangedStep(catalogue),
    floorCreatedStep(floor, ctx),
    ...entry,
  ]);
}
