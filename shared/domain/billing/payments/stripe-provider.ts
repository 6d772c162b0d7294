import type Stripe from 'stripe';
import { WEBHOOK_TOLERANCE_SECONDS, WebhookRejected, type CheckoutRequest, type PaymentProvider } from './provider.ts';
import { toPaymentEvent } from './stripe-events.ts';

/**
 * The Stripe adapter of the payment-provider port (docs/decisions/0054-stripe-adapter.md):
 * Checkout Sessions in subscription mode, the Billing Portal, and webhooks verified on their raw body
 * and mapped onto `PaymentEvent`. Every object we make carries our subscription and account ids in its
 * metadata, so the events that follow map back without a lookup.
 */

/** Each attempt's limit; three attempts (two network retries) and their back-off fit under API Gateway's 29 s. */
export const STRIPE_TIMEOUT_MS = 8_000;
export const STRIPE_NETWORK_RETRIES = 2;

export interface StripeKeys {
  secretKey: string;
  webhookSecret: string;
  /** Another API address (`http://127.0.0.1:12111`): tests point the client at a fake server. */
  apiBase?: string;
}

/**
 * The adapter over the Stripe SDK, given as `sdk` (its default export): the caller imports the package
 * when it first needs it, so no function's cold start loads it (docs/cold-start.md).
 */
export function stripeProvider(keys: StripeKeys, sdk: typeof Stripe): PaymentProvider {
  const client = new sdk(keys.secretKey, {
    timeout: STRIPE_TIMEOUT_MS,
    maxNetworkRetries: STRIPE_NETWORK_RETRIES,
    telemetry: false,
    ...(keys.apiBase ? apiAddress(keys.apiBase) : {}),
  });

  return {
    name: 'stripe',

    async createCheckout(req) {
      const session = await client.checkout.sessions.create(checkoutParams(req), {
        idempotencyKey: req.idempotencyKey,
      });
      if (!session.url) throw new Error(`Stripe returned checkout session ${session.id} without a URL`);
      return { url: session.url, sessionId: session.id };
    },

    async createCustomer({ accountId, email, idempotencyKey }) {
      const customer = await client.customers.create(
        { email, metadata: { account_id: accountId } },
        { idempotencyKey },
      );
      return customer.id;
    },

    async portalUrl({ customerId, returnUrl }) {
      const session = await client.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl });
      return session.url;
    },

    async changeSubscriptionPlan(providerSubscriptionId, plan) {
      const interval = INTERVALS[plan.interval];
      if (!interval) throw new Error(`Plan ${plan.id} has no recurring interval Stripe knows (${plan.interval})`);
      const subscription = await client.subscriptions.retrieve(providerSubscriptionId);
      const item = subscription.items.data[0];
      if (!item) throw new Error(`Stripe subscription ${providerSubscriptionId} has no item to change`);
      // A subscription item's inline price needs a product (checkout's product_data is not accepted here).
      const product = await client.products.create({ name: plan.name }, { idempotencyKey: `plan-product-${plan.id}` });
      await client.subscriptions.update(
        providerSubscriptionId,
        {
          items: [
            {
              id: item.id,
              price_data: {
                currency: plan.currency.toLowerCase(),
                unit_amount: plan.price_cents,
                recurring: { interval },
                product: product.id,
              },
            },
          ],
          // The smaller plan is billed from the next period; what was paid for this one stands.
          proration_behavior: 'none',
        },
        { idempotencyKey: `downgrade-${providerSubscriptionId}-${plan.id}` },
      );
    },

    async cancelSubscription(providerSubscriptionId) {
      try {
        await client.subscriptions.cancel(providerSubscriptionId);
      } catch (error) {
        // Cancelled (or removed) there already: what we wanted.
        if (
          error instanceof sdk.errors.StripeInvalidRequestError &&
          (error.code === 'resource_missing' || /canceled/i.test(error.message))
        )
          return;
        throw error;
      }
    },

    async verifyWebhook(rawBody, headers, now) {
      const header = headers['stripe-signature'];
      if (!header) throw new WebhookRejected('missing Stripe-Signature header');
      const signedAt = signedTimestamp(header);
      if (signedAt === null) throw new WebhookRejected('malformed Stripe-Signature header');
      // Both ways against the caller's clock: the package checks only age, and only against the real clock.
      const age = Math.floor(now.getTime() / 1000) - signedAt;
      if (age > WEBHOOK_TOLERANCE_SECONDS) throw new WebhookRejected('timestamp too old');
      if (-age > WEBHOOK_TOLERANCE_SECONDS) throw new WebhookRejected('timestamp in the future');
      let event: Stripe.Event;
      try {
        event = client.webhooks.constructEvent(
          rawBody,
          header,
          keys.webhookSecret,
          WEBHOOK_TOLERANCE_SECONDS,
          undefined,
          now.getTime(),
        );
      } catch (error) {
        // A signature that verified over a body that is not JSON is not an event either.
        throw new WebhookRejected(
          error instanceof sdk.errors.StripeSignatureVerificationError
            ? 'signature does not verify'
            : 'not a Stripe event',
        );
      }
      if (
        typeof event?.id !== 'string' ||
        typeof event.type !== 'string' ||
        typeof event.created !== 'number' ||
        !event.data?.object
      ) {
        throw new WebhookRejected('not a Stripe event');
      }
      return toPaymentEvent(event);
    },
  };
}

/** `http://127.0.0.1:12111` → the client's host, port and protocol. */
function apiAddress(apiBase: string): { host: string; port: number; protocol: 'http' | 'https' } {
  const url = new URL(apiBase);
  const protocol = url.protocol.slice(0, -1);
  if (protocol !== 'http' && protocol !== 'https')
    throw new Error(`STRIPE_API_BASE must be an http(s) address, not ${apiBase}`);
  return { host: url.hostname, port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443, protocol };
}

/** Our plan intervals (and Stripe's own words) → Stripe's recurring interval. A free plan never reaches checkout. */
const INTERVALS: Record<string, 'month' | 'year'> = {
  monthly: 'month',
  month: 'month',
  annual: 'year',
  yearly: 'year',
  year: 'year',
};

function checkoutParams(req: CheckoutRequest): Stripe.Checkout.SessionCreateParams {
  const interval = INTERVALS[req.plan.interval];
  if (!interval) throw new Error(`Plan ${req.plan.id} has no recurring interval Stripe knows (${req.plan.interval})`);
  const metadata = { subscription_id: req.subscriptionId, account_id: req.accountId };
  return {
    mode: 'subscription',
    client_reference_id: req.subscriptionId,
    ...(req.customerId ? { customer: req.customerId } : { customer_email: req.email }),
    line_items: [
      {
        quantity: 1,
        price_data: {
          currency: req.plan.currency.toLowerCase(),
          unit_amount: req.plan.price_cents,
          recurring: { interval },
          product_data: { name: req.plan.name },
        },
      },
    ],
    metadata,
    subscription_data: { metadata },
    success_url: req.successUrl,
    cancel_url: req.cancelUrl,
  };
}

/** The signed time (`t=`) of a Stripe-Signature header, read as the package reads it (the last `t` wins). */
function signedTimestamp(header: string): number | null {
  let t: number | null = null;
  for (const part of header.split(',')) {
    const [key, value] = part.split('=');
    if (key === 't') t = /^\d+$/.test(value ?? '') ? Number(value) : null;
  }
  return t;
}
