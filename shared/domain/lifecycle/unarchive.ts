import { keys } from '#db/keys';
import { isArchived, setUnlessDeletedStep } from '#db/live';
import { deleteStep } from '#db/steps';
import { retryWhenStale } from '#db/transact';
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
import { serviceQuotaAddon } from '#domain/tenancy';
import type { ArchivableKind, Selection } from './selection.ts';
import { markerKey } from './archived-entity.ts';
import { runUnits, type SharedMove, type Unit } from './archive-batch.ts';
import {
  envKey,
  IN_ENVIRONMENT,
  nameOf,
  notFoundOf,
  projectKey,
  resolveArchived,
  selectedIds,
  type ArchivedTarget,
} from './archive-targets.ts';
import { outcomeOf, type ArchiveOutcome } from './archive-outcome.ts';
import { lifecycleAudit } from './archive-audit.ts';
import { listingSteps } from './archive-listing.ts';

/**
 * Restore (SPEC "/me/unarchive"): `archived_at` cleared, the owner's marker deleted and the plan
 * slots taken back within the current plan's limits, in one transaction per resource (archive.ts).
 */

/** 409: a service or floor whose environment is archived cannot come back on its own. */
export const RESTORE_ENVIRONMENT_FIRST = 'The environment is archived: restore the environment first';

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
