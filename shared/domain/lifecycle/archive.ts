import { keys } from '#db/keys';
import { getItem } from '#db/items';
import { isLive, setFieldsStep } from '#db/live';
import { countIs } from '#db/counter-moves';
import { putStep } from '#db/steps';
import { concurrentChange, retryWhenStale } from '#db/transact';
import { actorAccount, type AppContext } from '#shared/context';
import { environmentEntity, retentionOfProject } from '#domain/tenancy';
import type { ArchiveReport, Selection } from './selection.ts';
import { markerItem } from './archived-entity.ts';
import { runUnits, type RunResult, type SharedMove, type Unit } from './archive-batch.ts';
import { envKey, nameOf, notFoundOf, projectKey, resolveLive, type Target } from './archive-targets.ts';
import { outcomeOf, type ArchiveOutcome } from './archive-outcome.ts';
import { lifecycleAudit, type AuditRun } from './archive-audit.ts';
import { listedAsRead, listingSteps } from './archive-listing.ts';

/**
 * Archive and restore (SPEC "/me/mark-archived", "/me/unarchive"). Archiving hides a live
 * resource without deleting anything: `archived_at` set (the live rule in shared/db/live.ts then keeps
 * it out of every list, limit and change), its plan slots given back, and a marker written under the
 * owner, all in one transaction per resource. Restoring clears `archived_at` and takes the slots back
 * within the current plan's limits in the same transaction, so concurrent restores and creates never
 * pass a limit. Restoring: unarchive.ts; batching: archive-batch.ts; which ids are the owner's: archive-targets.ts;
 * the audit entries: archive-audit.ts.
 */

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
