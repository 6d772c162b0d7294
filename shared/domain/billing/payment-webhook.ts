import { keys } from '#db/keys';
import { conditionalPut } from '#db/items';
import { IF_ABSENT, putNewStep } from '#db/steps';
import { concurrentChange, type TransactStep } from '#db/transact';
import { epochSeconds, type AppContext } from '#shared/context';
import { invalid, notFound } from '#shared/errors';
import { perAddressPerMinute } from '#domain/identity';
import { log } from '#shared/log';
import { getPlan } from './plans.ts';
import { listSubscriptions } from './subscriptions.ts';
import { billingCustomerStep, endSubscription, switchTo } from './plan-changes.ts';
import { transactWithInvoice } from './invoices.ts';
import { paymentProvider, WebhookRejected, type PaymentEvent, type PaymentProvider } from './payments/index.ts';

export const PROVIDER_NOT_FOUND = 'Payment provider not found';
export const INVALID_WEBHOOK = 'Invalid webhook signature';

/** A provider retries for days; its event ids are remembered a little longer. */
const EVENT_MEMORY_SECONDS = 30 * 24 * 3600;

/** Thrown by the event record's step: this event was applied before (a redelivery). */
const ALREADY_APPLIED = concurrentChange();

export type WebhookOutcome = 'applied' | 'duplicate' | 'ignored';

/**
 * POST /billing/{payment_provider}/webhook (public: the provider calls it). Limited per source
 * address (SPEC: 120 a minute); the provider named in the path must be the configured one; the raw
 * body's signature and timestamp are verified by the provider's adapter (400 when they do not hold).
 * Each event is recorded in the transaction of the change it causes, so a redelivered event changes
 * nothing; a subscription only moves forward, so out-of-order events cannot move it backwards.
 */
export async function receivePaymentWebhook(
  ctx: AppContext,
  input: { provider: string; rawBody: string; headers: Record<string, string | undefined>; sourceIp: string },
): Promise<WebhookOutcome> {
  await perAddressPerMinute('payment-webhook', input.sourceIp, ctx.config.PAYMENT_WEBHOOK_RATE_LIMIT_PER_MINUTE, ctx);
  const provider = await paymentProvider(ctx.config);
  if (!provider || provider.name !== input.provider) throw notFound(PROVIDER_NOT_FOUND);
  let event: PaymentEvent;
  try {
    event = await provider.verifyWebhook(input.rawBody, input.headers, ctx.clock.now());
  } catch (err) {
    if (!(err instanceof WebhookRejected)) throw err;
    log.warn('payment webhook rejected', { provider: provider.name, reason: err.message, source_ip: input.sourceIp });
    throw invalid(INVALID_WEBHOOK);
  }
  try {
    return await applyPaymentEvent(provider, event, ctx);
  } catch (err) {
    if (err === ALREADY_APPLIED) return 'duplicate';
    throw err;
  }
}

async function applyPaymentEvent(
  provider: PaymentProvider,
  event: PaymentEvent,
  ctx: AppContext,
): Promise<WebhookOutcome> {
  const record = putNewStep(
    {
      ...keys.paymentEvent(provider.name, event.id),
      type: 'payment_event',
      event_type: event.type,
      received_at: ctx.clock.now().toISOString(),
      expires_at_epoch: epochSeconds(ctx.clock.now()) + EVENT_MEMORY_SECONDS,
    },
    ALREADY_APPLIED,
  );
  const remember = async (): Promise<WebhookOutcome> => {
    if (!(await conditionalPut(record.Put!.Item as Record<string, unknown>, IF_ABSENT))) throw ALREADY_APPLIED;
    return 'ignored';
  };
  if (event.type === 'ignored') return remember();
  const sub = (await listSubscriptions(event.accountId)).find((s) => s.id === event.subscriptionId);
  if (!sub) {
    log.warn('payment event for an unknown subscription', {
      event_id: event.id,
      subscription_id: event.subscriptionId,
    });
    return remember();
  }
  switch (event.type) {
    case 'checkout.completed': {
      const plan = await getPlan(sub.plan_id);
      if (!plan || sub.status !== 'pending') return remember();
      const alongside: TransactStep[] = [record];
      if (event.customerId) alongside.push(billingCustomerStep(sub.user_id, provider.name, event.customerId, ctx));
      const out = await switchTo(
        sub.user_id,
        plan,
        {
          activate: sub,
          amountCents: event.amountCents,
          currency: event.currency,
          alongside,
          subscriptionFields: { provider_subscription_id: event.providerSubscriptionId },
        },
        ctx,
      );
      return out.applied ? 'applied' : remember();
    }
    case 'subscription.status':
      if (event.status !== 'cancelled') return remember(); // activation comes with the paid checkout; never backwards
      return (await endSubscription(sub.user_id, sub.id, [record], ctx)) ? 'applied' : remember();
    case 'renewal.paid': {
      const plan = await getPlan(sub.plan_id);
      if (!plan || sub.status !== 'active') return remember();
      await transactWithInvoice(
        [record],
        { userId: sub.user_id, subscriptionId: sub.id, plan, amountCents: event.amountCents, currency: event.currency },
        ctx,
      );
      return 'applied';
    }
  }
}
