import * as z from 'zod';
import { lazySchema } from '#shared/lazy-schema';
import { keys } from '#db/keys';
import { getItem, conditionalUpdate } from '#db/items';
import { putUnlessSame } from '#db/claims';
import { putNewStep, setWhenExpression } from '#db/steps';
import { onContention } from '#db/retry';
import { transact } from '#db/transact';
import { actorAccount, epochSeconds, type AppContext } from '#shared/context';
import { conflict, forbidden, invalid, notFound } from '#shared/errors';
import { enqueue } from '#shared/queue';
import { getAccount, type Account } from '#domain/identity';
import { errorFields, log } from '#shared/log';
import { getPlan, type Plan } from './plans.ts';
import {
  listSubscriptions,
  newSubscription,
  putSubscriptionStep,
  currentOf,
  type Subscription,
} from './subscriptions.ts';
import { billingCustomerItem, isFreePlan, switchTo } from './plan-changes.ts';
import { paymentProvider, type PaymentProvider } from './payments/index.ts';

/** The jobs-queue message of a checkout: queued by the checkout above, run by `runCheckoutJob` (the jobs worker parses it once). */
export const checkoutJobMessage = lazySchema(() =>
  z.object({ kind: z.literal('checkout'), user_id: z.string().min(1), job_id: z.string().min(1) }),
);
export type CheckoutJobMessage = z.infer<ReturnType<typeof checkoutJobMessage>>;

/** The jobs-queue message of a plan change at the provider: queued by a confirmed downgrade (lifecycle), run by `changePlanAtProvider`. */
export const changeProviderPlanJobMessage = lazySchema(() =>
  z.object({
    kind: z.literal('change-provider-plan'),
    user_id: z.string().min(1),
    provider_subscription_id: z.string().min(1),
    plan_id: z.string().min(1),
  }),
);
export type ChangeProviderPlanJobMessage = z.infer<ReturnType<typeof changeProviderPlanJobMessage>>;

export const PLAN_NOT_FOUND = 'Plan not found';
export const PAID_PLANS_IN_BETA = 'Upgrading to paid plans is disabled in beta mode';
export const PLAN_BY_ARRANGEMENT =
  'This plan is arranged with sales. Please send an enterprise request (POST /enterprise/request).';
export const ALREADY_ON_PLAN = 'You are already subscribed to this plan';
export const NO_PAYMENT_PROVIDER = 'Paid plans cannot be bought here: no payment provider is configured';
export const JOB_NOT_FOUND = 'Job not found';
export const CHECKOUT_FAILED = 'Checkout could not be started. Please choose the plan again.';
export const PORTAL_NOT_ENABLED = 'Billing portal is not enabled';
export const PORTAL_IN_BETA = 'Billing portal is disabled in beta mode';

/** A checkout job is kept a week, then DynamoDB removes it. */
const JOB_TTL_SECONDS = 7 * 24 * 3600;

type CheckoutJob = {
  id: string;
  kind: 'checkout';
  status: 'queued' | 'ready' | 'failed';
  user_id: string;
  subscription_id: string;
  plan_id: string;
  url: string | null;
  created_at: string;
  updated_at: string;
};

/**
 * POST /subscriptions/choose. A free plan applies at once: the active subscriptions are cancelled, a
 * new active one starts, a zero-amount invoice is issued. A paid plan makes a pending subscription
 * (the one already pending for that plan is reused) and queues a checkout job; the current plan keeps
 * running until the payment arrives.
 */
export async function choosePlan(
  ctx: AppContext,
  input: { plan_id: string },
): Promise<{ status: 'ok'; applied: 'free' } | { job_id: string }> {
  const account = actorAccount(ctx);
  const plan = await getPlan(input.plan_id);
  if (!plan?.is_public) throw notFound(PLAN_NOT_FOUND);
  if (isFreePlan(plan)) {
    await switchTo(account.id, plan, { amountCents: 0, currency: plan.currency }, ctx);
    return { status: 'ok', applied: 'free' };
  }
  if (plan.interval === 'custom') throw forbidden(PLAN_BY_ARRANGEMENT);
  if (ctx.config.BETA_MODE) throw forbidden(PAID_PLANS_IN_BETA);
  if (!paymentProvider(ctx.config)) throw forbidden(NO_PAYMENT_PROVIDER);
  return { job_id: await startCheckout(account.id, plan, ctx) };
}

/** Thrown when a concurrent choose of the same plan made the pending subscription first: re-read, then reuse it. */
const SLOT_TAKEN = conflict('Pending subscription taken');

/**
 * The pending subscription for `plan` (the one holding the plan's pending slot, reused; else a new
 * one taking the slot) and a new checkout job for it, written together. The slot is released in the
 * transaction that moves its subscription out of pending, so a slot always names a pending one.
 */
async function startCheckout(userId: string, plan: Plan, ctx: AppContext): Promise<string> {
  const now = ctx.clock.now();
  const jobId = ctx.ids.newId();
  const job = (subscriptionId: string) => {
    const j: CheckoutJob = {
      id: jobId,
      kind: 'checkout',
      status: 'queued',
      user_id: userId,
      subscription_id: subscriptionId,
      plan_id: plan.id,
      url: null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    return putNewStep({
      ...keys.accountJob(userId, jobId),
      type: 'job',
      ...j,
      expires_at_epoch: epochSeconds(now) + JOB_TTL_SECONDS,
    });
  };
  const slot = keys.pendingSubscription(userId, plan.id);
  await onContention(
    async () => {
      const [subs, taken] = await Promise.all([listSubscriptions(userId), getItem<{ subscription_id: string }>(slot)]);
      if ((await currentOf(subs))?.plan.id === plan.id) throw conflict(ALREADY_ON_PLAN);
      if (taken) return transact([job(taken.subscription_id)]);
      const sub = newSubscription(userId, plan.id, 'pending', ctx);
      await transact([
        putNewStep({ ...slot, type: 'pending_subscription', subscription_id: sub.id }, SLOT_TAKEN),
        putSubscriptionStep(sub),
        job(sub.id),
      ]);
    },
    (err) => err === SLOT_TAKEN,
  );
  try {
    await enqueue('jobs', { kind: 'checkout', user_id: userId, job_id: jobId } satisfies CheckoutJobMessage);
  } catch (err) {
    log.error('checkout job not queued', { job_id: jobId, ...errorFields(err) });
    await markJob(userId, jobId, { status: 'failed' }, ctx);
  }
  return jobId;
}

/** Only a queued job moves (to ready or failed), once. */
const markJob = (userId: string, jobId: string, fields: Partial<CheckoutJob>, ctx: AppContext) =>
  conditionalUpdate(
    keys.accountJob(userId, jobId),
    setWhenExpression({ ...fields, updated_at: ctx.clock.now().toISOString() }, { status: 'queued' }),
  );

/**
 * The checkout worker (jobs queue): asks the provider for a checkout of the job's pending
 * subscription and stores its URL. Idempotent: a finished job is left alone, and the provider gets
 * the job id as idempotency key, so a redelivered message makes no second session. Errors are
 * thrown for the queue to retry; on the last attempt the job is marked failed.
 */
export async function runCheckoutJob(
  ctx: AppContext,
  input: { user_id: string; job_id: string; lastAttempt: boolean },
): Promise<void> {
  const job = await getItem<CheckoutJob>(keys.accountJob(input.user_id, input.job_id));
  if (job?.status !== 'queued') return;
  try {
    const [account, plan, sub, customer] = await Promise.all([
      getAccount(job.user_id),
      getPlan(job.plan_id),
      getItem<Subscription>(keys.subscription(job.user_id, job.subscription_id)),
      getItem<{ customer_id: string }>(keys.billingCustomer(job.user_id)),
    ]);
    if (!account || !plan || sub?.status !== 'pending') {
      await markJob(job.user_id, job.id, { status: 'failed' }, ctx);
      return;
    }
    const provider = await paymentProvider(ctx.config);
    if (!provider) throw new Error('no payment provider');
    const app = ctx.config.APP_BASE_URL.replace(/\/$/, '');
    const { url } = await provider.createCheckout({
      subscriptionId: sub.id,
      accountId: account.id,
      email: account.email,
      customerId: customer?.customer_id ?? null,
      idempotencyKey: job.id,
      plan: {
        id: plan.id,
        name: plan.name,
        interval: plan.interval,
        price_cents: plan.price_cents,
        currency: plan.currency,
      },
      successUrl: `${app}/billing/success?subscription_id=${sub.id}`,
      cancelUrl: `${app}/billing/cancelled?subscription_id=${sub.id}`,
    });
    await markJob(job.user_id, job.id, { status: 'ready', url }, ctx);
  } catch (err) {
    if (!input.lastAttempt) throw err;
    log.error('checkout failed for good', { job_id: job.id, ...errorFields(err) });
    await markJob(job.user_id, job.id, { status: 'failed' }, ctx);
  }
}

/** Jobs worker: a subscription left here is ended at the provider too, so nobody is charged for a plan they left (retried by the queue until it holds). */
export async function cancelAtProvider(ctx: AppContext, input: { provider_subscription_id: string }): Promise<void> {
  const provider = await paymentProvider(ctx.config);
  await provider?.cancelSubscription(input.provider_subscription_id);
}

/** Jobs worker: a confirmed downgrade to a smaller paid plan moves the provider's subscription to it (billed from its next period). */
export async function changePlanAtProvider(
  ctx: AppContext,
  input: { provider_subscription_id: string; plan_id: string },
): Promise<void> {
  const [provider, plan] = await Promise.all([paymentProvider(ctx.config), getPlan(input.plan_id)]);
  if (!provider || !plan) return;
  await provider.changeSubscriptionPlan(input.provider_subscription_id, {
    id: plan.id,
    name: plan.name,
    interval: plan.interval,
    price_cents: plan.price_cents,
    currency: plan.currency,
  });
}

/** GET /subscriptions/checkout-url/{job_id}: the caller's job only (another's is 'Job not found'). */
export async function checkoutStatus(
  ctx: AppContext,
  input: { job_id: string },
): Promise<{ status: 'pending' } | { status: 'ready'; url: string }> {
  const job = await getItem<CheckoutJob>(keys.accountJob(actorAccount(ctx).id, input.job_id));
  if (job?.kind !== 'checkout') throw notFound(JOB_NOT_FOUND);
  if (job.status === 'failed') throw conflict(CHECKOUT_FAILED);
  return job.status === 'ready' && job.url ? { status: 'ready', url: job.url } : { status: 'pending' };
}

/**
 * GET /me/billing/portal: the provider's self-service page for the caller's billing account, for any
 * account (SPEC allows only its two 400s): one that never paid gets its customer made here.
 */
export async function billingPortal(ctx: AppContext): Promise<{ url: string }> {
  const account = actorAccount(ctx);
  const provider = await paymentProvider(ctx.config);
  if (!provider) throw invalid(PORTAL_NOT_ENABLED);
  if (ctx.config.BETA_MODE) throw invalid(PORTAL_IN_BETA);
  const [customerId, current] = await Promise.all([customerOf(account, provider, ctx), currentOfAccount(account.id)]);
  const paid = current?.subscription.provider_subscription_id ? current.subscription.id : null;
  return {
    url: await provider.portalUrl({
      customerId,
      accountId: account.id,
      subscriptionId: paid,
      returnUrl: `${ctx.config.APP_BASE_URL.replace(/\/$/, '')}/billing`,
    }),
  };
}

type BillingCustomer = { customer_id: string; provider: string };

/**
 * The account's customer at the provider, made on first use. Concurrent first uses make one: the
 * provider gets one idempotency key per account (both calls get the same customer back), and the
 * record is written only where this provider has none yet, so a customer a payment stored meanwhile
 * (the one holding the subscription) is never replaced; the loser reads the winner's.
 */
async function customerOf(account: Account, provider: PaymentProvider, ctx: AppContext): Promise<string> {
  const key = keys.billingCustomer(account.id);
  const stored = await getItem<BillingCustomer>(key);
  if (stored?.provider === provider.name) return stored.customer_id;
  const customerId = await provider.createCustomer({
    accountId: account.id,
    email: account.email,
    idempotencyKey: `customer-${account.id}`,
  });
  const written = await putUnlessSame(billingCustomerItem(account.id, provider.name, customerId, ctx), 'provider');
  return written ? customerId : (await getItem<BillingCustomer>(key))!.customer_id;
}

const currentOfAccount = async (userId: string) => currentOf(await listSubscriptions(userId));
