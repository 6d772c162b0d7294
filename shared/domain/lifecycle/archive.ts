import { keys } from '#db/keys';
import { getItem } from '#db/items';
import { isLive, setFieldsStep, isArchived, setUnlessDeletedStep } from '#db/live';
import { countIs } from '#db/counter-moves';
import { deleteStep, putStep } from '#db/steps';
import { concurrentChange, retryWhenStale } from '#db/transact';
import { conflict, type DomainError } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import {
  API_KEY_FEATURES,
  API_KEY_SET_RULES,
  API_KEYS_QUOTA,
  ENVIRONMENTS_QUOTA,
  FREE_PLAN_ID,
  PROJECT_USERS_QUOTA,
  SERVICES_QUOTA,
  activePlan,
  getPlan,
  quotaLimit,
  requireFeatures,
  type ApiKeySet,
  type Plan,
} from '#domain/billing';
import { floorListing, serviceListing, type Listable, type Listing } from '#domain/catalog';
import { environmentEntity, retentionOfProject, serviceQuotaAddon } from '#domain/tenancy';
import { auditStep, changeAudit } from '#shared/audit';
import type { TransactStep } from '#db/transact';
import { ARCHIVABLE_KINDS, type ArchivableKind, type ArchiveReport, type Selection } from './selection';
import { markerItem, markerKey } from './archived-entity';
import { runUnits, type RunResult, type SharedMove, type Unit } from './archive-batch';
import {
  IN_ENVIRONMENT,
  notFoundOf,
  resolveArchived,
  resolveLive,
  selectedIds,
  type ArchivedTarget,
  type Target,
} from './archive-targets';

/**
 * Archive and restore (SPEC "/me/mark-archived", "/me/unarchive"). Archiving hides a live
 * resource without deleting anything: `archived_at` set (the live rule in shared/db/live.ts then keeps
 * it out of every list, limit and change), its plan slots given back, and a marker written under the
 * owner, all in one transaction per resource. Restoring clears `archived_at` and takes the slots back
 * within the current plan's limits in the same transaction, so concurrent restores and creates never
 * pass a limit. Batching: archive-batch.ts; which ids are the owner's: archive-targets.ts.
 */

/** 409: a service or floor whose environment is archived cannot come back on its own. */
export const RESTORE_ENVIRONMENT_FIRST = 'The environment is archived: restore the environment first';

/** What an archive or restore request did: counts and items per kind, and each resource refused after others were written. */
export interface ArchiveOutcome {
  counts: Record<ArchivableKind, number>;
  items: ArchiveReport;
  refused: { kind: ArchivableKind; id: string; detail: string }[];
}

const emptyReport = (): ArchiveReport =>
  Object.fromEntries(ARCHIVABLE_KINDS.map((k) => [k, []])) as unknown as ArchiveReport;

function outcomeOf(result: RunResult): ArchiveOutcome {
  const items = emptyReport();
  for (const unit of result.done) items[unit.kind].push({ id: unit.id, name: unit.name });
  const counts = Object.fromEntries(ARCHIVABLE_KINDS.map((k) => [k, items[k].length])) as Record<
    ArchivableKind,
    number
  >;
  const refused = result.refused.map(({ unit, error }) => ({
    kind: unit.kind,
    id: unit.id,
    detail: String(error.detail),
  }));
  return { counts, items, refused };
}

/** A name a person recognises: the resource's name; a floor's hostname, or its type and id without one. */
function nameOf(kind: ArchivableKind, item: Record<string, unknown>): string {
  if (kind !== 'service_floors') return String(item.name ?? '');
  return (item.hostname as string | null) ?? `${String(item.floor_type)} ${String(item.id).slice(0, 8)}`;
}

/**
 * Archive and restore are changes of the resource, each with its entry in the unit's transaction:
 * the caller, or the service at a downgrade deadline's enforcement. API keys are the account's, not a
 * project's: their archive and restore are entries of the account's own log (`apiKeyAudit`).
 */
const AUDITED_AS: Record<ArchivableKind, string | null> = {
  services: 'service',
  service_floors: 'floor',
  environments: 'environment',
  project_users: 'project_user',
  api_keys: 'api_key',
};
interface AuditRun {
  ctx: AppContext;
  days: number | null;
}

function lifecycleAudit(
  run: AuditRun,
  t: Target,
  verb: 'archive' | 'restore',
  now: string,
): { steps: TransactStep[]; head?: string } {
  const archivedAt = (t.item.archived_at as string | null | undefined) ?? null;
  if (t.kind === 'api_keys') return { steps: apiKeyAudit(run.ctx, t, verb, archivedAt, now) };
  const kind = AUDITED_AS[t.kind];
  if (!kind || !t.project) return { steps: [] };
  const entity = {
    id: t.id,
    project_id: t.project.id,
    environment_id: t.kind === 'environments' ? t.id : (t.env?.id ?? null),
    audit_head: t.item.audit_head as string | undefined,
  };
  return changeAudit(
    run.ctx,
    kind,
    verb,
    entity,
    { before: { archived_at: archivedAt }, after: { archived_at: verb === 'archive' ? now : null } },
    run.days,
  );
}

/**
 * An API key's archive or restore: an account-level entry in its account's own log, like the key's
 * creation and revocation (kept: account-level entries are few), by the caller or, at a downgrade
 * deadline, the service. The key's value and hash never enter it (only its set and name).
 */
function apiKeyAudit(
  ctx: AppContext,
  t: Target,
  verb: 'archive' | 'restore',
  archivedAt: string | null,
  now: string,
): TransactStep[] {
  return auditStep(
    ctx,
    {
      action: `api_key.${verb}`,
      entity_type: 'api_key',
      entity_id: t.id,
      project_id: null,
      account_id: String(t.item.user_id),
      before: { archived_at: archivedAt },
      after: { archived_at: verb === 'archive' ? now : null },
      summary: { key_set: t.item.key_set, name: t.item.name },
    },
    { mode: 'creation' },
  );
}

/** Services and floors leave their environment's name order when archived and come back when restored (catalog's listing items). */
const LISTED: Partial<Record<ArchivableKind, Listing<Listable>>> = {
  services: serviceListing,
  service_floors: floorListing,
};
function listingSteps(
  kind: ArchivableKind,
  item: Record<string, unknown>,
  verb: 'archive' | 'restore',
): TransactStep[] {
  const listing = LISTED[kind];
  if (!listing) return [];
  const entity = listing.decode(item);
  // From the state read to the archived (restored) one: listings kept while not deleted (a service's references) stay.
  return verb === 'archive'
    ? listing.steps(entity, { ...entity, archived_at: 'archived' })
    : listing.steps({ ...entity, archived_at: entity.archived_at ?? 'archived' }, { ...entity, archived_at: null });
}
/** The archive's condition that the listing it removes is the one of the item as read (a concurrent rename refuses it). */
const listedAsRead = (kind: ArchivableKind, item: Record<string, unknown>) =>
  LISTED[kind]?.asRead(LISTED[kind]!.decode(item));

const projectKey = (t: Target) => keys.project(t.project!.id);
const envKey = (t: Target) => keys.environment(t.project!.id, t.env!.id);

// ---------------------------------------------------------------------------------------------
// Archive

/**
 * Environments are archived after everything else a selection names, each conditional on the service
 * count it subtracts from the project (as a delete does): the count read, less the selected services
 * in it that the run archives first. If it moved meanwhile, the environment is read again.
 */
function archiveEnvironmentUnit(ownerId: string, t: Target, counted: number, now: string, run: AuditRun): Unit {
  const env = environmentEntity.decode(t.item);
  const key = keys.environment(env.project_id, env.id);
  const stale = concurrentChange();
  const audit = lifecycleAudit(run, t, 'archive', now);
  return {
    kind: 'environments',
    id: env.id,
    name: env.name,
    writes: [
      ...audit.steps,
      setFieldsStep(
        key,
        { archived_at: now, updated_at: now, audit_head: audit.head },
        stale,
        countIs('service_count', counted),
      ),
      putStep(
        markerItem(ownerId, {
          kind: 'environments',
          id: env.id,
          project_id: env.project_id,
          environment_id: env.id,
          name: env.name,
          archived_at: now,
          item_pk: key.PK,
          item_sk: key.SK,
        }),
      ),
    ],
    shared: [{ key: keys.project(env.project_id), deltas: { env_count: -1, service_count: -counted } }],
    refresh: {
      when: stale,
      rebuild: async () => {
        const item = await getItem(key);
        if (!item || !isLive(item)) throw notFoundOf('environments');
        const fresh = environmentEntity.decode(item);
        return archiveEnvironmentUnit(ownerId, { ...t, item, env: fresh }, fresh.service_count, now, run);
      },
    },
  };
}

function archiveUnit(ownerId: string, t: Target, now: string, run: AuditRun): Unit {
  const name = nameOf(t.kind, t.item);
  const gone = () => notFoundOf(t.kind);
  const audit = lifecycleAudit(run, t, 'archive', now);
  const writes = [
    ...audit.steps,
    setFieldsStep(
      t.key,
      { archived_at: now, updated_at: now, audit_head: audit.head },
      gone(),
      listedAsRead(t.kind, t.item),
    ),
    ...listingSteps(t.kind, t.item, 'archive'),
    putStep(
      markerItem(ownerId, {
        kind: t.kind,
        id: t.id,
        project_id: t.project?.id ?? null,
        environment_id: t.env?.id ?? null,
        name,
        archived_at: now,
        item_pk: t.key.PK,
        item_sk: t.key.SK,
      }),
    ),
  ];
  const shared: SharedMove[] = {
    services: () => [
      { key: projectKey(t), deltas: { service_count: -1 } },
      // Only while its environment is live: once an environment's archive or delete has taken its whole count off the project, nothing is subtracted twice.
      { key: envKey(t), deltas: { service_count: -1 }, whileLive: gone },
    ],
    project_users: () => [{ key: projectKey(t), deltas: { project_user_count: -1 } }],
    api_keys: () => [{ key: keys.account(ownerId), deltas: { api_key_count: -1 } }],
    service_floors: () => [{ key: envKey(t), deltas: {}, whileLive: gone }],
    environments: () => [],
  }[t.kind]();
  return { kind: t.kind, id: t.id, name, writes, shared };
}

/** Resolves and writes an archive: 404 (nothing written) for an id that is not a live resource of the owner's. */
// Re-run from a new read when its write went stale (a concurrent change moved what it read, its audit head included: db/transact.ts).
const archiveRun = (...args: Parameters<typeof archiveRunOnce>) => retryWhenStale(() => archiveRunOnce(...args));

async function archiveRunOnce(ownerId: string, selection: Selection, ctx: AppContext): Promise<RunResult> {
  const targets = await resolveLive(ownerId, selection);
  const now = ctx.clock.now().toISOString();
  const run: AuditRun = { ctx, days: targets.length ? await retentionOfProject({ owner_id: ownerId }) : null };
  const others = targets.filter((t) => t.kind !== 'environments');
  const servicesIn = new Map<string, number>();
  for (const t of others) if (t.kind === 'services') servicesIn.set(t.env!.id, (servicesIn.get(t.env!.id) ?? 0) + 1);
  const environments = targets
    .filter((t) => t.kind === 'environments')
    .map((t) =>
      archiveEnvironmentUnit(
        ownerId,
        t,
        Math.max(0, (t.env!.service_count ?? 0) - (servicesIn.get(t.id) ?? 0)),
        now,
        run,
      ),
    );
  return runUnits([...others.map((t) => archiveUnit(ownerId, t, now, run)), ...environments]);
}

/**
 * The one archive write: archives the live resources `selection` names in projects `ownerId` owns
 * (and `ownerId`'s own API keys, both sets), giving their plan slots back. Used by POST
 * /me/mark-archived (the caller's id) and by the deadline enforcement (no actor). An unknown, foreign
 * or not live id is its kind's 404 and nothing is written. Answers what was archived.
 */
export async function archiveSelection(ownerId: string, selection: Selection, ctx: AppContext): Promise<ArchiveReport> {
  return outcomeOf(await archiveRun(ownerId, selection, ctx)).items;
}

/** POST /me/mark-archived: archives the caller's own resources. */
export async function markArchived(ctx: AppContext, selection: Selection): Promise<ArchiveOutcome> {
  return outcomeOf(await archiveRun(actorAccount(ctx).id, selection, ctx));
}

// ---------------------------------------------------------------------------------------------
// Restore

/** A service's or floor's environment that is not live: archived (restore it first) or gone. */
const envRefusal =
  (kind: ArchivableKind) =>
  (env: Record<string, unknown> | undefined): DomainError =>
    isArchived(env) ? conflict(RESTORE_ENVIRONMENT_FIRST) : notFoundOf(kind);

function restoreUnit(ownerId: string, t: ArchivedTarget, plan: Plan, now: string, ctx: AppContext): Unit {
  const name = nameOf(t.kind, t.item);
  const gone = notFoundOf(t.kind);
  // A transition from the state read: still archived at that instant, not deleted (and, for an environment, holding the services counted).
  const counted = t.kind === 'environments' && 'service_count' in t.item ? { service_count: t.item.service_count } : {};
  const audit = lifecycleAudit({ ctx, days: plan.features.data_retention_days ?? null }, t, 'restore', now);
  const writes = [
    ...audit.steps,
    setUnlessDeletedStep(
      t.key,
      { archived_at: null, updated_at: now, ...(audit.head ? { audit_head: audit.head } : {}) },
      { archived_at: t.item.archived_at, ...counted },
      gone,
    ),
    deleteStep(markerKey(ownerId, t.kind, t.id), gone),
    ...listingSteps(t.kind, t.item, 'restore'),
  ];
  const services = (addon: number) => ({ service_count: quotaLimit(plan, SERVICES_QUOTA, addon) });
  const shared: SharedMove[] = {
    environments: () => [
      {
        key: projectKey(t),
        deltas: { env_count: 1, service_count: Number(t.item.service_count ?? 0) },
        limits: { env_count: quotaLimit(plan, ENVIRONMENTS_QUOTA), ...services(serviceQuotaAddon(t.project!)) },
      },
    ],
    services: () => [
      { key: projectKey(t), deltas: { service_count: 1 }, limits: services(serviceQuotaAddon(t.project!)) },
      {
        key: envKey(t),
        deltas: { service_count: 1 },
        limits: services(serviceQuotaAddon(t.project!)),
        whileLive: envRefusal(t.kind),
      },
    ],
    project_users: () => [
      {
        key: projectKey(t),
        deltas: { project_user_count: 1 },
        limits: { project_user_count: quotaLimit(plan, PROJECT_USERS_QUOTA) },
      },
    ],
    api_keys: () => [
      {
        key: keys.account(ownerId),
        deltas: { api_key_count: 1 },
        limits: { api_key_count: quotaLimit(plan, API_KEYS_QUOTA) },
      },
    ],
    service_floors: () => [{ key: envKey(t), deltas: {}, whileLive: envRefusal(t.kind) }],
  }[t.kind]();
  return { kind: t.kind, id: t.id, name, writes, shared };
}

/**
 * POST /me/unarchive: restores archived resources of the caller's, taking their plan slots back
 * within the current plan's limits in the restoring transaction. Refusals, before anything is
 * written: 404 for an id that is not an archived resource of the caller's; 409 for a service or
 * floor whose environment is archived and not restored by the same request; 403 when the plan lacks
 * the API-key features. A limit refuses with its usual 403 (see archive-batch.ts for how a selection
 * is split: all-or-nothing when it fits one transaction). Environments are restored first.
 */
// Re-run from a new read when its write went stale (a concurrent change moved what it read, its audit head included: db/transact.ts).
export const unarchive = (...args: Parameters<typeof unarchiveOnce>) => retryWhenStale(() => unarchiveOnce(...args));

async function unarchiveOnce(ctx: AppContext, selection: Selection): Promise<ArchiveOutcome> {
  const ownerId = actorAccount(ctx).id;
  const targets = await resolveArchived(ownerId, selection);
  const restoringEnvs = new Set(selectedIds(selection, 'environments'));
  for (const t of targets) {
    if (IN_ENVIRONMENT.includes(t.kind) && isArchived(t.env) && !restoringEnvs.has(t.env!.id))
      throw conflict(RESTORE_ENVIRONMENT_FIRST);
  }
  const active = targets.some((t) => t.kind !== 'service_floors') ? await activePlan(ownerId) : undefined;
  for (const t of targets)
    if (t.kind === 'api_keys')
      requireFeatures(active?.plan, API_KEY_FEATURES, API_KEY_SET_RULES[t.item.key_set as ApiKeySet].what);
  const plan = active?.plan ?? (await getPlan(FREE_PLAN_ID))!;
  const now = ctx.clock.now().toISOString();
  const order = (t: ArchivedTarget) => (t.kind === 'environments' ? 0 : 1);
  const units = [...targets].sort((a, b) => order(a) - order(b)).map((t) => restoreUnit(ownerId, t, plan, now, ctx));
  return outcomeOf(await runUnits(units));
}
