import { keys } from '#db/keys';
import { conditionalUpdate } from '#db/items';
import { setWhenExpression } from '#db/steps';
import { moveOnWhileUnfinished, moveOnWhileUnfinishedStep } from '#db/sequence';
import { transact, concurrentChange, type TransactStep } from '#db/transact';
import { auditStep } from '#shared/audit';
import { log } from '#shared/log';
import { pushToJob } from '#shared/progress';
import type { AppContext } from '#shared/context';
import { accountKey } from './accounts.ts';
import { discoveryRunEntity, type CloudAccount, type DiscoveryRun } from './entities.ts';
import type { DiscoveryAudit } from './sync.ts';

/** A discovery run moved on (each change pushed to its followers) and finished, its account freed. */

export const RUN_KIND = 'discovery_run';
export const RUN_NOT_FOUND = 'Discovery run not found';

export const runKey = (r: Pick<DiscoveryRun, 'project_id' | 'cloud_account_id' | 'created_at' | 'id'>) =>
  keys.discoveryRun(r.project_id, r.cloud_account_id, r.created_at, r.id);

/** Moves a run on while it is not finished; answers the run as written, or undefined when it had finished. */
export async function updateRun(
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

/** Finishes the run and frees its account (only if the account still names this run). */
export async function finish(
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
