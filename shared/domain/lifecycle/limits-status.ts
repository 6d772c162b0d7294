import { keys } from '#db/keys';
import { getItem } from '#db/items';
import { notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { activePlan, NO_ACTIVE_SUBSCRIPTION } from '#domain/billing';
import { accountUsage, overage } from './usage.ts';
import { overageCandidatesOf } from './candidates.ts';
import { windowOut, type DowngradeWindow } from './downgrade-window.ts';

/** The caller's plan, usage and open window, read in parallel (an account without an active subscription: 404, as GET /me/subscription). */
async function measured(ctx: AppContext) {
  const userId = actorAccount(ctx).id;
  const [usage, current, window] = await Promise.all([
    accountUsage(userId),
    activePlan(userId),
    getItem<DowngradeWindow>(keys.downgradeWindow(userId)),
  ]);
  if (!current) throw notFound(NO_ACTIVE_SUBSCRIPTION);
  return { userId, usage, plan: current.plan, o: overage(usage, current.plan), window };
}

/** GET /me/limits/status, in SPEC's shape: what the account uses of its plan, what is over, the window, and each environment's services. */
export async function limitsStatus(ctx: AppContext) {
  const { o, window } = await measured(ctx);
  const overTotal = o.over.services + o.over.project_users + o.over.api_keys;
  return {
    limits: o.limits,
    usage: o.usage,
    over: o.over,
    over_total: overTotal,
    any_over: overTotal > 0,
    archive_window: windowOut(window, ctx),
    services_per_env: o.per_project.flatMap((p) =>
      p.per_environment.map((e) => ({
        project_id: p.project_id,
        environment_id: e.environment_id,
        environment_name: e.name,
        services: e.services.count,
        limit: e.services.limit,
        over: e.services.over,
      })),
    ),
  };
}

/** GET /me/limits/overage-candidates: what could be archived to get under the current plan's limits, with a suggested selection. */
export async function overageCandidates(ctx: AppContext) {
  const { userId, usage, o } = await measured(ctx);
  return overageCandidatesOf(userId, usage, o);
}
