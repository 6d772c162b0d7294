import { getItem } from '#db/items';
import { locate } from '#db/lookup';
import { isRefusal, notFound } from '#shared/errors';
import { issueTicket } from '#shared/progress';
import { actorAccount, type AppContext } from '#shared/context';
import { accessToItem, type Located } from '#domain/tenancy';
import { MISSING_VIEW } from '#domain/catalog';
import { discoveryRunEntity, discoveryRunView, type DiscoveryRun } from './entities.ts';
import { discoveryProgressMessage, RUN_KIND, RUN_NOT_FOUND } from './run-updates.ts';

/** A discovery run as its readers see it: its status and counts, its progress and the ticket to follow it. */

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
