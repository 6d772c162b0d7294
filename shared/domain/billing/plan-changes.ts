import * as z from 'zod';
import { lazySchema } from '#shared/lazy-schema';
import { auditStep } from '#shared/audit';
import { keys } from '#db/keys';
import { putStep, setWhenStep } from '#db/steps';
import { concurrentChange, transact, type TransactStep } from '#db/transact';
import { onContention } from '#db/retry';
import { accountEventStep } from '#shared/events';
import { log } from '#shared/log';
import { enqueue } from '#shared/queue';
import type { AppContext } from '#shared/context';
import { FREE_PLAN_ID, getPlan, type Plan } from './plans.ts';
import {
  listSubscriptions,
  newSubscription,
  putSubscriptionStep,
  currentOf,
  activeOf,
  type Subscription,
  type SubscriptionStatus,
} from './subscriptions.ts';
import { transactWithInvoice, type InvoiceDraft } from './invoices.ts';

/** The jobs-queue message of a cancellation at the provider: queued after a plan change (below), run by `cancelAtProvider`. */
export const cancelProviderSubscriptionJobMessage = lazySchema(() =>
  z.object({
    kind: z.literal('cancel-provider-subscription'),
    user_id: z.string().min(1),
    subscription_id: z.string().min(1),
    provider_subscription_id: z.string().min(1),
  }),
);
export type CancelProviderSubscriptionJobMessage = z.infer<ReturnType<typeof cancelProviderSubscriptionJobMessage>>;

/**
 * Subscription transitions (SPEC "States and transitions: Subscription"), the one place they are
 * written. A subscription only moves forward, pending → active → cancelled (cancelled is final), and
 * each move is conditional on the state it was read in: out-of-order or concurrent changes can never
 * move one backwards; a transition that lost a race is re-read and re-decided.
 */

/** SPEC: a free plan is one with price 0 or no interval; Enterprise+ (custom, price agreed with sales) is not free. */
/** Rules on plan data the dashboard must apply before calling too: one place (plan-rules.ts, copied into the client package). */
export { isDowngrade, isFreePlan } from './plan-rules.ts';

/** Thrown by a step whose subscription changed since it was read: the whole transition is re-read and re-run. */
export const SUBSCRIPTION_CHANGED = concurrentChange();
export const retryWhileChanging = <T>(fn: () => Promise<T>) => onContention(fn, (err) => err === SUBSCRIPTION_CHANGED);

/** Moves `sub` from the state it was read in to `to` (with `fields`); refused (re-run) if it moved meanwhile. */
export const moveStep = (
  sub: Subscription,
  to: SubscriptionStatus,
  fields: Record<string, unknown>,
  ctx: AppContext,
): TransactStep =>
  setWhenStep(
    keys.subscription(sub.user_id, sub.id),
    { status: to, updated_at: ctx.clock.now().toISOString(), ...fields },
    { status: sub.status },
    SUBSCRIPTION_CHANGED,
  );

/** A pending subscription leaves its plan's "pending" slot when it is paid or cancelled. */
export const releasePendingStep = (sub: Subscription): TransactStep => ({
  Delete: { Key: keys.pendingSubscription(sub.user_id, sub.plan_id) },
});

export interface PlanChange {
  from: Plan | undefined;
  to: Plan | undefined;
}

/**
 * The outbox step of `subscription.changed`, for the transaction of the change, when the current
 * plan becomes a different one (data: account id, old and new plan ids and names); none otherwise.
 */
export function planChangeSteps(userId: string, change: PlanChange, ctx: AppContext): TransactStep[] {
  if (change.from?.id === change.to?.id) return [];
  return [
    // The account's audit entry of the change (account-level: the account's own log; kept, as plan changes are few).
    ...auditStep(
      ctx,
      {
        action: 'subscription.plan_change',
        entity_type: 'subscription',
        entity_id: userId,
        project_id: null,
        account_id: userId,
        before: { plan_id: change.from?.id ?? null, plan_name: change.from?.name ?? null },
        after: { plan_id: change.to?.id ?? null, plan_name: change.to?.name ?? null },
      },
      { mode: 'creation' },
    ),
    accountEventStep(
      'subscription.changed',
      userId,
      {
        account_id: userId,
        old_plan_id: change.from?.id ?? null,
        old_plan_name: change.from?.name ?? null,
        new_plan_id: change.to?.id ?? null,
        new_plan_name: change.to?.name ?? null,
      },
      ctx,
    ),
  ];
}

/**
 * After a committed change: the provider's subscriptions of the cancelled ones are cancelled there
 * too (a job, retried until it holds), so nobody is charged for a plan they left.
 */
export async function afterPlanChange(userId: string, cancelled: Subscription[]): Promise<void> {
  for (const sub of cancelled) {
    const providerSubscriptionId = sub.provider_subscription_id;
    if (!providerSubscriptionId) continue;
    await enqueue('jobs', {
      kind: 'cancel-provider-subscription',
      user_id: userId,
      subscription_id: sub.id,
      provider_subscription_id: providerSubscriptionId,
    } satisfies CancelProviderSubscriptionJobMessage).catch((err) =>
      log.error('provider cancellation not queued', { subscription_id: sub.id, error: String(err) }),
    );
  }
}

/**
 * Makes `plan` the account's one active subscription: the active ones are cancelled, a new one (or
 * `activate`, a pending one being paid) becomes active, and a paid invoice for the period is issued,
 * all in one transaction with `alongside` (e.g. the provider event's record).
 */
export async function switchTo(
  userId: string,
  plan: Plan,
  opts: {
    activate?: Subscription;
    amountCents: number;
    currency: string;
    alongside?: TransactStep[];
    subscriptionFields?: Record<string, unknown>;
  },
  ctx: AppContext,
) {
  return retryWhileChanging(async () => {
    const subs = await listSubscriptions(userId);
    const before = await currentOf(subs);
    const previous = activeOf(subs).filter((s) => s.id !== opts.activate?.id);
    const now = ctx.clock.now().toISOString();
    let target: Subscription;
    const steps: TransactStep[] = [...(opts.alongside ?? [])];
    if (opts.activate) {
      const fresh = subs.find((s) => s.id === opts.activate!.id) ?? opts.activate;
      if (fresh.status !== 'pending') return { applied: false as const };
      target = { ...fresh, status: 'active', period_start: now };
      steps.push(
        moveStep(fresh, 'active', { period_start: now, ...opts.subscriptionFields }, ctx),
        releasePendingStep(fresh),
      );
    } else {
      target = newSubscription(userId, plan.id, 'active', ctx);
      steps.push(putSubscriptionStep(target));
    }
    steps.push(...previous.map((s) => moveStep(s, 'cancelled', { period_end: now }, ctx)));
    steps.push(...planChangeSteps(userId, { from: before?.plan, to: plan }, ctx));
    const draft: InvoiceDraft = {
      userId,
      subscriptionId: target.id,
      plan,
      amountCents: opts.amountCents,
      currency: opts.currency,
    };
    const invoice = await transactWithInvoice(steps, draft, ctx);
    await afterPlanChange(userId, previous);
    return { applied: true as const, subscription: target, invoice };
  });
}

/**
 * The provider ended a subscription (cancelled, or its payment failed for good): it becomes
 * cancelled; if it was the account's current plan and no other is active, the account falls back to
 * an active Free subscription in the same transaction.
 */
export async function endSubscription(
  userId: string,
  subscriptionId: string,
  alongside: TransactStep[],
  ctx: AppContext,
): Promise<boolean> {
  return retryWhileChanging(async () => {
    const subs = await listSubscriptions(userId);
    const sub = subs.find((s) => s.id === subscriptionId);
    if (!sub || sub.status === 'cancelled') return false;
    const before = await currentOf(subs);
    const now = ctx.clock.now().toISOString();
    const steps = [...alongside, moveStep(sub, 'cancelled', { period_end: now }, ctx)];
    if (sub.status === 'pending') steps.push(releasePendingStep(sub));
    const othersActive = activeOf(subs).some((s) => s.id !== sub.id);
    const fallBack = sub.status === 'active' && !othersActive;
    if (fallBack) steps.push(putSubscriptionStep(newSubscription(userId, FREE_PLAN_ID, 'active', ctx)));
    const after = fallBack ? await getPlan(FREE_PLAN_ID) : (await currentOf(subs.filter((s) => s.id !== sub.id)))?.plan;
    await transact([...steps, ...planChangeSteps(userId, { from: before?.plan, to: after }, ctx)]);
    return true;
  });
}

/** The provider's customer of the account, kept for the billing portal and later checkouts. */
export const billingCustomerItem = (userId: string, provider: string, customerId: string, ctx: AppContext) => ({
  ...keys.billingCustomer(userId),
  type: 'billing_customer',
  provider,
  customer_id: customerId,
  updated_at: ctx.clock.now().toISOString(),
});
/** Written with the payment it came with: that customer holds the subscription, so it replaces any other. */
export const billingCustomerStep = (
  userId: string,
  provider: string,
  customerId: string,
  ctx: AppContext,
): TransactStep => putStep(billingCustomerItem(userId, provider, customerId, ctx));
