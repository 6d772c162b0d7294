import * as z from 'zod';
import { lazySchema } from '#shared/lazy-schema';
import { getItem } from '#db/items';
import { locate, lookupStep } from '#db/lookup';
import { putNewStep } from '#db/steps';
import { setFieldsStep, isLive } from '#db/live';
import { transact } from '#db/transact';
import { conflict, notFound } from '#shared/errors';
import { enqueue } from '#shared/queue';
import { errorFields, log } from '#shared/log';
import { actorAccount, type AppContext } from '#shared/context';
import { featureMissing } from '#domain/billing';
import { planOfProject } from '#domain/tenancy';
import { MISSING_MANAGE } from '#domain/catalog';
import { accessToCloudAccount, accountKey, CLOUD_ACCOUNT_NOT_FOUND } from './accounts.ts';
import { cloudAccountEntity, discoveryRunEntity, type CloudAccount, type DiscoveryProvider } from './entities.ts';
import { finish, RUN_KIND, RUN_NOT_FOUND, runKey, updateRun } from './run-updates.ts';

/** Starting a discovery run: who may, the plan's providers, one run an account at a time (a stale one replaced). */

/** The jobs-queue message of a discovery run: queued when the run starts (below), run by `runDiscoveryJob`. */
export const discoverJobMessage = lazySchema(() =>
  z.object({ kind: z.literal('discover'), project_id: z.string().min(1), run_id: z.string().min(1) }),
);
export type DiscoverJobMessage = z.infer<ReturnType<typeof discoverJobMessage>>;

const PROVIDER_NAMES: Record<DiscoveryProvider, string> = {
  aws: 'AWS',
  hetzner: 'Hetzner Cloud',
  digitalocean: 'DigitalOcean',
};
/** SPEC's plan refusal, naming what is missing: `Your plan does not include auto-discovery for Hetzner Cloud (feature: auto_discovery). Please upgrade.` */
export const noAutoDiscovery = (provider: DiscoveryProvider) =>
  featureMissing(`auto-discovery for ${PROVIDER_NAMES[provider]}`, 'auto_discovery');

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
