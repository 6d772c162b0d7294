import { keys } from '#db/keys';
import type { TransactStep } from '#db/transact';
import { putNewStep } from '#db/steps';
import { notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { FREE_PLAN_ID, getPlan, type Plan } from './plans.ts';
import type { Account } from '#domain/identity';
import { queryPartition } from '#db/query';

export type SubscriptionStatus = 'active' | 'pending' | 'cancelled';

export interface Subscription {
  id: string;
  user_id: string;
  plan_id: string;
  status: SubscriptionStatus;
  period_start: string;
  period_end: string | null;
  /** The provider's subscription once paid (cancelled there when the account moves to Free). */
  provider_subscription_id?: string | null;
  created_at: string;
  updated_at: string;
}

export function newSubscription(
  userId: string,
  planId: string,
  status: SubscriptionStatus,
  ctx: AppContext,
): Subscription {
  const now = ctx.clock.now().toISOString();
  return {
    id: ctx.ids.newId(),
    user_id: userId,
    plan_id: planId,
    status,
    period_start: now,
    period_end: null,
    provider_subscription_id: null,
    created_at: now,
    updated_at: now,
  };
}

export const putSubscriptionStep = (sub: Subscription): TransactStep =>
  putNewStep({ ...keys.subscription(sub.user_id, sub.id), type: 'subscription', ...sub });

export function newSubscriptionStep(
  userId: string,
  planId: string,
  status: SubscriptionStatus,
  ctx: AppContext,
): TransactStep {
  return putSubscriptionStep(newSubscription(userId, planId, status, ctx));
}

export async function listSubscriptions(userId: string): Promise<Subscription[]> {
  const items = await queryPartition<Subscription>(keys.account(userId).PK, keys.subscriptionPrefix);
  return items as Subscription[];
}

/** The account's active subscription and its plan; with several active, the latest period start wins (SPEC). */
export async function activePlan(userId: string): Promise<{ subscription: Subscription; plan: Plan } | undefined> {
  return currentOf(await listSubscriptions(userId));
}

/** The subscriptions that are active, the current one (latest period start) first. */
export const activeOf = (subs: Subscription[]) =>
  subs.filter((s) => s.status === 'active').sort((a, b) => b.period_start.localeCompare(a.period_start));

/** Of an account's subscriptions, the current one and its plan (SPEC: with several active, the latest period start). */
export async function currentOf(subs: Subscription[]): Promise<{ subscription: Subscription; plan: Plan } | undefined> {
  for (const subscription of activeOf(subs)) {
    const plan = await getPlan(subscription.plan_id);
    if (plan) return { subscription, plan };
  }
  return undefined;
}

export const NO_ACTIVE_SUBSCRIPTION = 'No active subscription';

/** The caller's active subscription and its plan; 404 when there is none. */
export async function currentSubscription(ctx: AppContext): Promise<{ subscription: Subscription; plan: Plan }> {
  const active = await activePlan(actorAccount(ctx).id);
  if (!active) throw notFound(NO_ACTIVE_SUBSCRIPTION);
  return active;
}

/** What GET /me/subscription shows of the active plan: a summary, and its features once more at the top. */
export function toSubscriptionOut({ plan }: { plan: Plan }) {
  const { id, name, interval, price_cents, currency, max_projects, max_services, features } = plan;
  return { plan: { id, name, interval, price_cents, currency, max_projects, max_services, features }, features };
}

/** The feature flags of the caller's active plan; none without one. */
export async function activeFeatures(ctx: AppContext): Promise<Partial<Plan['features']>> {
  return (await activePlan(actorAccount(ctx).id))?.plan.features ?? {};
}

/** A new customer starts on an active Free subscription, written in the account's creation transaction. */
export const startingSubscription = (account: Pick<Account, 'id' | 'account_type'>, ctx: AppContext): TransactStep[] =>
  account.account_type === 'customer' ? [newSubscriptionStep(account.id, FREE_PLAN_ID, 'active', ctx)] : [];
