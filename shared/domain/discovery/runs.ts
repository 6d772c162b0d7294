import * as z from 'zod';
import { lazySchema } from '#shared/lazy-schema';
import { keys } from '#db/keys';
import { getItem, conditionalUpdate } from '#db/items';
import { locate, lookupStep } from '#db/lookup';
import { putNewStep, setWhenExpression } from '#db/steps';
import { moveOnWhileUnfinished, moveOnWhileUnfinishedStep } from '#db/sequence';
import { setFieldsStep, isLive } from '#db/live';
import { transact, concurrentChange, type TransactStep } from '#db/transact';
import { accountActor, auditStep, SERVICE_ACTOR } from '#shared/audit';
import { getAccount } from '#domain/identity';
import { conflict, isRefusal, notFound } from '#shared/errors';
import { enqueue } from '#shared/queue';
import { errorFields, log } from '#shared/log';
import { issueTicket, pushToJob } from '#shared/progress';
import { actorAccount, type AppContext } from '#shared/context';
import { featureMissing } from '#domain/billing';
import { accessToItem, planOfProject, projectEntity, retentionOfProject, type Located } from '#domain/tenancy';
import { MISSING_MANAGE, MISSING_VIEW } from '#domain/catalog';
import { accessToCloudAccount, accountKey, CLOUD_ACCOUNT_NOT_FOUND, providerAccount } from './accounts';
import {
  cloudAccountEntity,
  discoveryRunEntity,
  discoveryRunView,
  type CloudAccount,
  type DiscoveryProvider,
  type DiscoveryRun,
} from './entities';
import { adapterFor } from './providers';
import { ProviderRefusal } from './providers/types';
import { applyScan, type DiscoveryAudit } from './sync';

/** The jobs-queue message of a discovery run: queued when the run starts (below), run by `runDiscoveryJob`. */
export const discoverJobMessage = lazySchema(() =>
  z.object({ kind: z.literal('discover'), project_id: z.string().min(1), run_id: z.string().min(1) }),
);
export type DiscoverJobMessage = z.infer<ReturnType<typeof discoverJobMessage>>;

export const RUN_KIND = 'discovery_run';
export const RUN_NOT_FOUND = 'Discovery run not found';
const PROVIDER_NAMES: Record<DiscoveryProvider, string> = {
  aws: 'AWS',
  hetzner: 'Hetzner Cloud',
  digitalocean: 'DigitalOcean',
};
/** SPEC's plan refusal, naming what is missing: `Your plan does not include auto-discovery for Hetzner Cloud (feature: auto_discovery). Please upgrade.` */
export const noAutoDiscovery = (provider: DiscoveryProvider) =>
  featureMissing(`auto-discovery for ${PROVIDER_NAMES[provider]}`, 'auto_discovery');

const runKey = (r: Pick<DiscoveryRun, 'project_id' | 'cloud_account_id' | 'created_at' | 'id'>) =>
  keys.discoveryRun(r.project_id, r.cloud_account_id, r.created_at, r.id);
const BUSY = conflict('A discovery of this account is running');

/**
 * POST /integrations/cloud-accounts/{id}/discover. Refusals in SPEC's order: 404 'CloudAccount not
 * found' (missing, removed or in a project the caller is not in), 403 'Missing permission:
 * connections.manage' (in the account's environment), 403 when the plan's `auto_discovery` lacks the
 * provider. A run is written with the account's `active_run_id` in one transaction, so while one
 * runs a second discover answers that run (`reused`).
 */
export async function startDiscovery(ctx: AppContext, input: { account_id: string }) {
  const { access, account } = await accessToCloudAccount(input.account_id, actorAccount(ctx).id);
  access.require('connections.manage', MISSING_MANAGE, account.environment_id);
  const plan = await planOfProject(access.project);
  if (!plan.features.auto_discovery.includes(account.provider)) throw noAutoDiscovery(account.provider);
  const now = ctx.clock.now().toISOString();
  const reuse = (runId: string) => ({ status: 'queued' as const, job_id: runId, run_id: runId, reused: true });
  // A run that has not moved for STALE_RUN_MINUTES (its worker died for good) is failed and replaced.
  let replacing: string | null = null;
  if (account.active_run_id) {
    if (!(await replaceIfStale(ctx, account))) return reuse(account.active_run_id);
    replacing = account.active_run_id;
  }
  const run = discoveryRunEntity.create({
    id: ctx.ids.newId(),
    cloud_account_id: account.id,
    project_id: account.project_id,
    environment_id: account.environment_id,
    provider: account.provider,
    status: 'queued',
    created_by: access.userId,
    created_at: now,
    updated_at: now,
  });
  const key = runKey(run);
  const guard = replacing
    ? { expression: 'active_run_id = :old', values: { ':old': replacing } }
    : { expression: 'active_run_id = :null', values: {} };
  try {
    await transact([
      putNewStep(discoveryRunEntity.encode(key, run)),
      lookupStep(run.id, run.project_id, key, RUN_KIND, { environment_id: run.environment_id }),
      setFieldsStep(accountKey(account), { active_run_id: run.id, last_run_id: run.id, updated_at: now }, BUSY, guard),
    ]);
  } catch (err) {
    if (err !== BUSY) throw err;
    const current = cloudAccountEntity.decode((await getItem(accountKey(account)))!);
    if (!isLive(current)) throw notFound(CLOUD_ACCOUNT_NOT_FOUND);
    if (!current.active_run_id) throw err;
    return reuse(current.active_run_id);
  }
  try {
    await enqueue('jobs', {
      kind: 'discover',
      project_id: run.project_id,
      run_id: run.id,
    } satisfies DiscoverJobMessage);
  } catch (err) {
    log.error('discovery job not queued', { run_id: run.id, ...errorFields(err) });
    await finish(ctx, run, account, { status: 'failed', error: 'The job could not be queued. Please try again.' });
    return { status: 'failed' as const, job_id: run.id, run_id: run.id, reused: false };
  }
  return { status: 'queued' as const, job_id: run.id, run_id: run.id, reused: false };
}

/** A run that has not changed for this long while queued or running is taken for dead (the worker's time is a minute a try). */
export const STALE_RUN_MINUTES = 30;
export const STALE_RUN_ERROR = 'The discovery stopped making progress; a new one was started.';

/** Fails the account's active run when it is stale; answers whether it may be replaced. */
async function replaceIfStale(ctx: AppContext, account: CloudAccount): Promise<boolean> {
  const found = await locate(account.active_run_id!, RUN_KIND, notFound(RUN_NOT_FOUND)).catch(() => undefined);
  const raw = found && (await getItem(found.key));
  if (!raw) return true;
  const run = discoveryRunEntity.decode(raw);
  if (run.status === 'succeeded' || run.status === 'failed') return true;
  if (ctx.clock.now().getTime() - Date.parse(run.updated_at) < STALE_RUN_MINUTES * 60_000) return false;
  await updateRun(ctx, run, { status: 'failed', error: STALE_RUN_ERROR, finished_at: ctx.clock.now().toISOString() });
  return true;
}

/** GET /integrations/discovery-runs/{job_id}: a run's status, progress and counts (connections.view in its environment). */
export async function getDiscoveryRun(ctx: AppContext, input: { job_id: string }) {
  const { item } = await accessToItem<DiscoveryRun>({
    kind: RUN_KIND,
    id: input.job_id,
    userId: actorAccount(ctx).id,
    notFound: notFound(RUN_NOT_FOUND),
    envOf: runEnvironment,
    permission: { key: 'connections.view', detail: MISSING_VIEW },
  });
  return discoveryRunView.project(discoveryRunEntity.decode(item));
}

/** A run's environment is recorded on its lookup; lookups written before it was lack it, so such a run is read first (one more GetItem). */
const runEnvironment = async (l: Located) =>
  (l.refs.environment_id as string | undefined) ?? ((await getItem(l.key))?.environment_id as string | undefined);

/** Moves a run on while it is not finished; answers the run as written, or undefined when it had finished. */
async function updateRun(
  ctx: AppContext,
  run: DiscoveryRun,
  fields: Partial<DiscoveryRun>,
  alongside: TransactStep[] = [],
): Promise<DiscoveryRun | undefined> {
  const updatedAt = ctx.clock.now().toISOString();
  const changes = { ...fields, updated_at: updatedAt };
  let next: DiscoveryRun;
  if (alongside.length) {
    // With other writes (the run's audit entry): one transaction, the run as written computed here.
    const finished = concurrentChange();
    try {
      await transact([moveOnWhileUnfinishedStep(runKey(run), changes, finished), ...alongside]);
    } catch (err) {
      if (err === finished) return undefined;
      throw err;
    }
    next = { ...run, ...changes, seq: run.seq + 1 };
  } else {
    const written = await moveOnWhileUnfinished(runKey(run), changes);
    if (!written) return undefined;
    next = discoveryRunEntity.decode(written);
  }
  await pushToJob(next.id, discoveryProgressMessage(next));
  return next;
}

/** The progress message pushed over the WebSocket: `{type:'discovery.progress', job_id, status, pct, counts, seq}`. */
export const discoveryProgressMessage = (r: DiscoveryRun) => ({
  type: 'discovery.progress',
  job_id: r.id,
  cloud_account_id: r.cloud_account_id,
  status: r.status,
  pct: r.progress.pct,
  counts: { done: r.progress.done, total: r.progress.total, ...r.counts },
  failed_regions: r.failed_regions,
  seq: r.seq,
});

/** The progress source of discovery runs (for a connection's sync): undefined for another kind of job. */
export async function discoveryProgressOf(jobId: string) {
  const found = await locate(jobId, RUN_KIND, notFound(RUN_NOT_FOUND)).catch((err) =>
    isRefusal(err, 'not_found') ? undefined : Promise.reject(err),
  );
  const raw = found && (await getItem(found.key));
  return raw ? discoveryProgressMessage(discoveryRunEntity.decode(raw)) : undefined;
}

/** POST /integrations/progress-ticket {job_id}: a single-use ticket to follow a discovery run over the WebSocket (as GET of the run). */
export async function discoveryProgressTicket(ctx: AppContext, input: { job_id: string }) {
  await getDiscoveryRun(ctx, input);
  return issueTicket(ctx, actorAccount(ctx).id, input.job_id);
}

/** Finishes the run and frees its account (only if the account still names this run). */
async function finish(
  ctx: AppContext,
  run: DiscoveryRun,
  account: CloudAccount,
  fields: Partial<DiscoveryRun> & { status: 'succeeded' | 'failed' },
  accountFields: Partial<CloudAccount> = {},
  audit?: DiscoveryAudit,
) {
  const now = ctx.clock.now().toISOString();
  (fields.status === 'failed' ? log.warn : log.info)('discovery run finished', {
    run_id: run.id,
    cloud_account_id: account.id,
    provider: account.provider,
    status: fields.status,
    counts: fields.counts,
    failed_regions: fields.failed_regions,
    error: fields.error,
  });
  // One entry per run, with its counts, written with the run's result (by the account that started it).
  const entry = audit
    ? auditStep(
        ctx,
        {
          action: 'discovery.run',
          entity_type: 'discovery_run',
          entity_id: run.id,
          project_id: run.project_id,
          environment_id: run.environment_id,
          summary: {
            status: fields.status,
            cloud_account_id: account.id,
            provider: account.provider,
            ...(fields.counts ?? {}),
            failed_regions: fields.failed_regions ?? [],
          },
        },
        { mode: 'creation' },
        { actor: audit.actor },
      )
    : [];
  await updateRun(ctx, run, { ...fields, finished_at: now }, entry);
  // Only while the account still names this run.
  await conditionalUpdate(
    accountKey(account),
    setWhenExpression({ active_run_id: null, updated_at: now, ...accountFields }, { active_run_id: run.id }),
  );
}

/**
 * The jobs worker's discovery (idempotent: a finished run is left alone; an interrupted one scans
 * again, which converges since floors are matched by instance). A refused credential fails the run
 * at once; other errors are thrown for the queue to retry, and fail the run on the last attempt.
 */
export async function runDiscoveryJob(ctx: AppContext, input: { run_id: string; lastAttempt: boolean }): Promise<void> {
  const located = await locate(input.run_id, RUN_KIND, notFound(RUN_NOT_FOUND)).catch((err) =>
    isRefusal(err, 'not_found') ? undefined : Promise.reject(err),
  );
  if (!located) return;
  const raw = await getItem(located.key);
  const found = raw && discoveryRunEntity.decode(raw);
  if (!found || found.status === 'succeeded' || found.status === 'failed') return;
  const accountRaw = await getItem(keys.cloudAccount(found.project_id, found.environment_id, found.cloud_account_id));
  const account = accountRaw && cloudAccountEntity.decode(accountRaw);
  if (!account || !isLive(account)) {
    if (account) await finish(ctx, found, account, { status: 'failed', error: 'The cloud account was removed.' });
    else
      await updateRun(ctx, found, {
        status: 'failed',
        error: 'The cloud account was removed.',
        finished_at: ctx.clock.now().toISOString(),
      });
    return;
  }
  let run = (await updateRun(ctx, found, { status: 'running' })) ?? found;
  const [starter, project] = await Promise.all([
    getAccount(run.created_by),
    getItem(keys.project(run.project_id)).then(projectEntity.decodeFound),
  ]);
  const audit: DiscoveryAudit = {
    runId: run.id,
    actor: starter ? accountActor(starter) : SERVICE_ACTOR,
    days: project ? await retentionOfProject(project) : null,
  };
  try {
    const listings = await (await adapterFor(account.provider)).list(await providerAccount(account));
    const failed = listings.filter((l) => !l.ok);
    const errors = failed.map((l) => (l.ok ? '' : l.error));
    const counts = await applyScan(
      ctx,
      account,
      listings,
      async (done, total) => {
        run =
          (await updateRun(ctx, run, {
            progress: { pct: total ? Math.floor((done / total) * 100) : 100, done, total },
          })) ?? run;
      },
      audit,
    );
    const now = ctx.clock.now().toISOString();
    const allFailed = listings.length > 0 && failed.length === listings.length;
    await finish(
      ctx,
      run,
      account,
      {
        status: allFailed ? 'failed' : 'succeeded',
        counts,
        failed_regions: failed.map((l) => l.scope),
        error: errors.length ? errors.join(' ') : null,
        progress: { pct: 100, done: counts.found, total: counts.found },
      },
      {
        last_discovery_at: now,
        last_error: errors.length ? errors.join(' ') : null,
        status: allFailed ? 'failed' : 'connected',
        last_checked_at: now,
      },
      audit,
    );
  } catch (err) {
    if (err instanceof ProviderRefusal) {
      await finish(
        ctx,
        run,
        account,
        { status: 'failed', error: err.message },
        { status: 'failed', last_error: err.message, last_checked_at: ctx.clock.now().toISOString() },
        audit,
      );
      return;
    }
    if (!input.lastAttempt) throw err;
    log.error('discovery job failed for good', { run_id: run.id, ...errorFields(err) });
    await finish(ctx, run, account, { status: 'failed', error: 'The discovery failed. Please try again.' }, {}, audit);
  }
}
