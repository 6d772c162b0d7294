import { keys } from '#db/keys';
import { getItem } from '#db/items';
import { deleteStep, putStep, setWhenStep } from '#db/steps';
import { transact, type TransactStep } from '#db/transact';
import { conflict, forbidden, invalid, notFound } from '#shared/errors';
import { enqueue } from '#shared/queue';
import { errorFields, log } from '#shared/log';
import { actorAccount, type AppContext } from '#shared/context';
import {
  ALREADY_ON_PLAN,
  PAID_PLANS_IN_BETA,
  PLAN_BY_ARRANGEMENT,
  PLAN_NOT_FOUND,
  NO_ACTIVE_SUBSCRIPTION,
  SUBSCRIPTION_CHANGED,
  planChangeSteps,
  currentOf,
  getPlan,
  isDowngrade,
  isFreePlan,
  listSubscriptions,
  retryWhileChanging,
  switchTo,
  type ChangeProviderPlanJobMessage,
  type Plan,
} from '#domain/billing';
import { accountUsage, anyOver, overage } from './usage.ts';
import { windowOut, type DowngradeWindow } from './downgrade-window.ts';

/** SPEC: enforcement two weeks after the confirmation. */
export const ARCHIVE_WINDOW_DAYS = 14;
const DAY_MS = 24 * 3600 * 1000;
/** What falls due in a window: reminders 7 days and 1 day before, the enforcement at its end. */
export const DEADLINE_KINDS = [
  { kind: 'reminder-7d', before: 7 * DAY_MS },
  { kind: 'reminder-1d', before: DAY_MS },
  { kind: 'enforce', before: 0 },
] as const;
export type DeadlineKind = (typeof DEADLINE_KINDS)[number]['kind'];

export const NOT_A_DOWNGRADE = 'This plan is not a downgrade of yours: choose it with POST /subscriptions/choose';

/** The target of a downgrade: public, not arranged with sales, not the current plan, and smaller. */
async function target(ctx: AppContext, toPlanId: string) {
  const userId = actorAccount(ctx).id;
  const [to, subs] = await Promise.all([getPlan(toPlanId), listSubscriptions(userId)]);
  if (!to?.is_public) throw notFound(PLAN_NOT_FOUND);
  if (to.interval === 'custom') throw forbidden(PLAN_BY_ARRANGEMENT);
  const current = await currentOf(subs);
  if (!current) throw notFound(NO_ACTIVE_SUBSCRIPTION);
  if (current.plan.id === to.id) throw conflict(ALREADY_ON_PLAN);
  if (!isDowngrade(current.plan, to)) throw invalid(NOT_A_DOWNGRADE);
  return { userId, to, current };
}

/** POST /me/downgrade/preflight: what would be over the target plan's limits, in total, per project and per environment. */
export async function downgradePreflight(ctx: AppContext, input: { to_plan_id: string }) {
  const { userId, to, current } = await target(ctx, input.to_plan_id);
  const o = overage(await accountUsage(userId), to);
  return {
    from_plan: { id: current.plan.id, name: current.plan.name },
    to_plan: { id: to.id, name: to.name },
    limits: o.limits,
    usage: o.usage,
    over: { ...o.over, environments: o.environments_over, projects: o.projects.over },
    any_over: anyOver(o) || o.projects.over > 0,
    archive_window_days: ARCHIVE_WINDOW_DAYS,
    projects: o.per_project
      .filter((p) => p.services.over + p.environments.over + p.project_users.over > 0)
      .map((p) => ({
        project_id: p.project_id,
        name: p.name,
        services: p.services,
        environments: p.environments,
        project_users: p.project_users,
        environments_over: p.per_environment
          .filter((e) => e.services.over > 0)
          .map((e) => ({ environment_id: e.environment_id, name: e.name, services: e.services })),
      })),
  };
}

/** The window's item and its deadlines; a window confirmed earlier is replaced (its deadlines removed). */
function windowSteps(window: DowngradeWindow, previous: DowngradeWindow | undefined): TransactStep[] {
  const at = (kind: (typeof DEADLINE_KINDS)[number]) => new Date(Date.parse(window.until) - kind.before).toISOString();
  const fresh = DEADLINE_KINDS.map((k) => keys.deadline(at(k), window.user_id, k.kind));
  const old = previous
    ? DEADLINE_KINDS.map((k) =>
        keys.deadline(new Date(Date.parse(previous.until) - k.before).toISOString(), previous.user_id, k.kind),
      )
    : [];
  return [
    putStep({ ...keys.downgradeWindow(window.user_id), type: 'downgrade_window', ...window }),
    ...fresh.map((key, i) =>
      putStep({ ...key, type: 'deadline', user_id: window.user_id, kind: DEADLINE_KINDS[i].kind, until: window.until }),
    ),
    ...old.filter((k) => !fresh.some((f) => f.SK === k.SK)).map((k) => deleteStep(k)),
  ];
}

/**
 * POST /me/downgrade/confirm: the plan changes now (its limits apply at once: nothing over them
 * can be created), and enforcement is scheduled exactly 14 days later. Until then the account
 * archives what it chooses; at the deadline whatever is still over is archived for it (never
 * deleted). To Free: as choosing Free (the paid subscription is cancelled, at the provider too).
 * To a smaller paid plan: the subscription moves to it, at the provider from its next period.
 */
export async function confirmDowngrade(ctx: AppContext, input: { to_plan_id: string }) {
  const { userId, to, current } = await target(ctx, input.to_plan_id);
  if (!isFreePlan(to) && ctx.config.BETA_MODE) throw forbidden(PAID_PLANS_IN_BETA);
  const now = ctx.clock.now();
  const previous = await getItem<DowngradeWindow>(keys.downgradeWindow(userId));
  const until = new Date(now.getTime() + ARCHIVE_WINDOW_DAYS * DAY_MS).toISOString();
  if (isFreePlan(to)) {
    const window: DowngradeWindow = {
      user_id: userId,
      until,
      from_plan_id: current.plan.id,
      to_plan_id: to.id,
      confirmed_at: now.toISOString(),
    };
    await switchTo(
      userId,
      to,
      { amountCents: 0, currency: to.currency, alongside: windowSteps(window, previous) },
      ctx,
    );
    return confirmed(ctx, to, window);
  }
  const window = await retryWhileChanging(async () => {
    const latest = await currentOf(await listSubscriptions(userId));
    if (!latest) throw notFound(NO_ACTIVE_SUBSCRIPTION);
    const sub = latest.subscription;
    const w: DowngradeWindow = {
      user_id: userId,
      until,
      from_plan_id: latest.plan.id,
      to_plan_id: to.id,
      confirmed_at: now.toISOString(),
    };
    await transact([
      setWhenStep(
        keys.subscription(userId, sub.id),
        { plan_id: to.id, updated_at: now.toISOString() },
        { status: 'active', plan_id: sub.plan_id },
        SUBSCRIPTION_CHANGED,
      ),
      ...windowSteps(w, previous),
      ...planChangeSteps(userId, { from: latest.plan, to }, ctx),
    ]);
    if (sub.provider_subscription_id) {
      await enqueue('jobs', {
        kind: 'change-provider-plan',
        user_id: userId,
        provider_subscription_id: sub.provider_subscription_id,
        plan_id: to.id,
      } satisfies ChangeProviderPlanJobMessage).catch((err) =>
        log.error('provider plan change not queued', { subscription_id: sub.id, ...errorFields(err) }),
      );
    }
    return w;
  });
  return confirmed(ctx, to, window);
}

async function confirmed(ctx: AppContext, to: Plan, window: DowngradeWindow) {
  const o = overage(await accountUsage(window.user_id), to);
  return {
    status: 'ok' as const,
    plan: { id: to.id, name: to.name },
    archive_window: windowOut(window, ctx),
    over: o.over,
    any_over: anyOver(o),
  };
}
