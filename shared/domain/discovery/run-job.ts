import { keys } from '#db/keys';
import { getItem } from '#db/items';
import { locate } from '#db/lookup';
import { isLive } from '#db/live';
import { accountActor, SERVICE_ACTOR } from '#shared/audit';
import { getAccount } from '#domain/identity';
import { isRefusal, notFound } from '#shared/errors';
import { errorFields, log } from '#shared/log';
import type { AppContext } from '#shared/context';
import { goesBack, progressAt } from '#shared/job-progress';
import { projectEntity, retentionOfProject } from '#domain/tenancy';
import { providerAccount } from './accounts.ts';
import { cloudAccountEntity, discoveryRunEntity } from './entities.ts';
import { adapterFor } from './providers/index.ts';
import { ProviderRefusal } from './providers/types.ts';
import { applyScan, type DiscoveryAudit } from './sync.ts';
import { finish, RUN_KIND, RUN_NOT_FOUND, updateRun } from './run-updates.ts';

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
        const progress = progressAt(done, total);
        // A run the queue tries again scans from the start: what it showed holds until this try passes it.
        if (goesBack(run.progress, progress)) return;
        run = (await updateRun(ctx, run, { progress })) ?? run;
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
        progress: progressAt(counts.found, counts.found),
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
