import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { stripeProvider } from '../../shared/domain/billing/payments/stripe-provider.ts';
import { STRIPE_STATUS } from '../../shared/domain/billing/payments/stripe-events.ts';
import {
  WEBHOOK_TOLERANCE_SECONDS,
  WebhookRejected,
  type CheckoutRequest,
  type PaymentProvider,
} from '../../shared/domain/billing/payments/provider.ts';
import { startFakeStripe, type FakeStripe } from '../../infra/deployed/stand-ins/stripe.ts';

/** The Stripe adapter against a fake Stripe API on 127.0.0.1; webhooks signed as Stripe signs them. */
const SECRET_KEY = 'sk_test_adapter';
const WEBHOOK_SECRET = 'whsec_adapter_test_secret';

let fake: FakeStripe;
let provider: PaymentProvider;
beforeAll(async () => {
  fake = await startFakeStripe();
  provider = stripeProvider({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET, apiBase: fake.url }, Stripe);
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const TEAM = {
  id: '00000000-0000-4000-8000-000000000004',
  name: 'Team',
  interval: 'monthly',
  price_cents: 7900,
  currency: 'USD',
};
const checkout = (over: Partial<CheckoutRequest> = {}): CheckoutRequest => ({
  subscriptionId: 'sub-ours-1',
  accountId: 'acct-ours-1',
  email: 'ann@example.com',
  plan: TEAM,
  customerId: null,
  successUrl: 'https://app.example.com/billing?checkout=done',
  cancelUrl: 'https://app.example.com/billing?checkout=cancelled',
  idempotencyKey: `job-${Math.random().toString(36).slice(2)}`,
  ...over,
});

describe('checkout', () => {
  it('creates a subscription-mode Checkout Session carrying our ids, the plan as an inline price and the job id as idempotency key', async () => {
    const req = checkout();
    const result = await provider.createCheckout(req);

    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0];
    expect(sent).toMatchObject({
      method: 'POST',
      path: '/v1/checkout/sessions',
      idempotencyKey: req.idempotencyKey,
      authorization: `Bearer ${SECRET_KEY}`,
    });
    expect(sent.stripeVersion).toBe(Stripe.API_VERSION);
    expect(sent.body).toEqual({
      mode: 'subscription',
      client_reference_id: 'sub-ours-1',
      customer_email: 'ann@example.com',
      line_items: [
        {
          quantity: '1',
          price_data: {
            currency: 'usd',
            unit_amount: '7900',
            recurring: { interval: 'month' },
            product_data: { name: 'Team' },
          },
        },
      ],
      metadata: { subscription_id: 'sub-ours-1', account_id: 'acct-ours-1' },
      subscription_data: { metadata: { subscription_id: 'sub-ours-1', account_id: 'acct-ours-1' } },
      success_url: req.successUrl,
      cancel_url: req.cancelUrl,
    });
    const session = fake.sessions.get(result.sessionId);
    expect(session).toBeDefined();
    expect(result.url).toBe(session!.url);
    expect(result.url).toMatch(/^https:\/\/checkout\.stripe\.com\//);
  });

  it("names the account's existing Stripe customer instead of an email, and bills annual plans yearly", async () => {
    await provider.createCheckout(
      checkout({ customerId: 'cus_existing', plan: { ...TEAM, interval: 'annual', price_cents: 75800 } }),
    );
    const { body } = fake.requests[0];
    expect(body.customer).toBe('cus_existing');
    expect(body).not.toHaveProperty('customer_email');
    expect(body.line_items[0].price_data).toEqual({
      currency: 'usd',
      unit_amount: '75800',
      recurring: { interval: 'year' },
      product_data: { name: 'Team' },
    });
  });

  it('makes one session for a repeated idempotency key', async () => {
    const req = checkout();
    const first = await provider.createCheckout(req);
    const again = await provider.createCheckout(req);
    expect(again).toEqual(first);
    expect(fake.requests.map((r) => r.idempotencyKey)).toEqual([req.idempotencyKey, req.idempotencyKey]);
    expect(fake.sessions.size).toBe(1);
  });

  it('retries a failed request with the same idempotency key', async () => {
    fake.failNext(1, 500);
    const req = checkout();
    const result = await provider.createCheckout(req);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests.map((r) => r.idempotencyKey)).toEqual([req.idempotencyKey, req.idempotencyKey]);
    expect([...fake.sessions.keys()]).toEqual([result.sessionId]);
  });

  it('gives up after its network retries and reports the failure', async () => {
    fake.failNext(10, 500);
    await expect(provider.createCheckout(checkout())).rejects.toThrow(/Simulated failure/);
    expect(fake.requests).toHaveLength(3); // one attempt and two retries
    expect(fake.sessions.size).toBe(0);
  });

  it('refuses a plan without a recurring interval before calling Stripe', async () => {
    await expect(provider.createCheckout(checkout({ plan: { ...TEAM, interval: 'none' } }))).rejects.toThrow(
      /interval/,
    );
    expect(fake.requests).toHaveLength(0);
  });
});

describe('billing portal', () => {
  it('makes a customer carrying our account id, once per idempotency key (the portal of an account that never paid)', async () => {
    const made = await provider.createCustomer({
      accountId: 'acct-ours-1',
      email: 'ann@example.com',
      idempotencyKey: 'customer-acct-ours-1',
    });
    expect(fake.requests[0]).toMatchObject({
      method: 'POST',
      path: '/v1/customers',
      idempotencyKey: 'customer-acct-ours-1',
      body: { email: 'ann@example.com', metadata: { account_id: 'acct-ours-1' } },
    });
    expect([...fake.customers.keys()]).toEqual([made]);
    expect(
      await provider.createCustomer({
        accountId: 'acct-ours-1',
        email: 'ann@example.com',
        idempotencyKey: 'customer-acct-ours-1',
      }),
    ).toBe(made);
    expect(fake.customers.size).toBe(1);
  });

  it('opens a Billing Portal session for the customer and returns its URL', async () => {
    const url = await provider.portalUrl({
      customerId: 'cus_123',
      accountId: 'acct-ours-1',
      returnUrl: 'https://app.example.com/billing',
    });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({
      method: 'POST',
      path: '/v1/billing_portal/sessions',
      body: { customer: 'cus_123', return_url: 'https://app.example.com/billing' },
    });
    expect(url).toMatch(/^https:\/\/billing\.stripe\.com\/p\/session\//);
  });
});

describe('changing the plan of a subscription (a confirmed downgrade)', () => {
  it("moves its item to the smaller plan's price from the next period, without proration", async () => {
    const starter = {
      id: '00000000-0000-4000-8000-000000000002',
      name: 'Starter',
      interval: 'monthly',
      price_cents: 2900,
      currency: 'USD',
    };
    await provider.changeSubscriptionPlan('sub_live_9', starter);
    const product = fake.requests.find((r) => r.path === '/v1/products')!;
    expect(product.body).toEqual({ name: 'Starter' });
    const update = fake.requests.find((r) => r.method === 'POST' && r.path === '/v1/subscriptions/sub_live_9')!;
    expect(update.body).toMatchObject({
      proration_behavior: 'none',
      items: [
        {
          id: 'si_sub_live_9',
          price_data: {
            currency: 'usd',
            unit_amount: '2900',
            recurring: { interval: 'month' },
            product: expect.stringMatching(/^prod_/),
          },
        },
      ],
    });
    expect(update.idempotencyKey).toBe(`downgrade-sub_live_9-${starter.id}`);
  });
});

describe('cancelling a subscription', () => {
  it('cancels it at Stripe; one cancelled already, or unknown there, is fine', async () => {
    await provider.cancelSubscription('sub_live_1');
    expect(fake.requests.at(-1)).toMatchObject({ method: 'DELETE', path: '/v1/subscriptions/sub_live_1' });
    await expect(provider.cancelSubscription('sub_live_1')).resolves.toBeUndefined();
    await expect(provider.cancelSubscription('sub_gone')).resolves.toBeUndefined();
  });

  it('reports any other failure, so the job is retried', async () => {
    fake.failNext(3, 500);
    await expect(provider.cancelSubscription('sub_live_2')).rejects.toThrow();
  });
});

// A frozen clock far from the real one: verification must follow it, not Date.now().
const NOW = new Date('2024-03-01T12:00:00Z');
const NOW_S = Math.floor(NOW.getTime() / 1000);
let sequence = 0;

const stripeEvent = (type: string, object: Record<string, unknown>) => ({
  id: `evt_test_${++sequence}`,
  object: 'event',
  api_version: Stripe.API_VERSION,
  created: NOW_S - 5,
  data: { object },
  livemode: false,
  pending_webhooks: 1,
  request: { id: null, idempotency_key: null },
  type,
});

const signed = (payload: string, { timestamp = NOW_S, secret = WEBHOOK_SECRET } = {}) => ({
  'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp }),
});

async function deliver(event: object, opts?: { timestamp?: number; secret?: string }) {
  const body = JSON.stringify(event);
  return provider.verifyWebhook(body, signed(body, opts), NOW);
}

async function rejection(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebhookRejected);
  return (error as Error).message;
}

const OURS = { subscription_id: 'sub-ours-1', account_id: 'acct-ours-1' };

const session = (over: Record<string, unknown> = {}) => ({
  id: 'cs_test_1',
  object: 'checkout.session',
  mode: 'subscription',
  payment_status: 'paid',
  status: 'complete',
  client_reference_id: 'sub-ours-1',
  customer: 'cus_123',
  subscription: 'sub_stripe_1',
  amount_total: 7900,
  currency: 'usd',
  metadata: OURS,
  ...over,
});

const subscription = (status: string, metadata: Record<string, string> = OURS) => ({
  id: 'sub_stripe_1',
  object: 'subscription',
  status,
  customer: 'cus_123',
  metadata,
});

const invoice = (over: Record<string, unknown> = {}) => ({
  id: 'in_1',
  object: 'invoice',
  amount_paid: 7900,
  currency: 'usd',
  billing_reason: 'subscription_cycle',
  next_payment_attempt: null,
  customer: 'cus_123',
  parent: {
    type: 'subscription_details',
    quote_details: null,
    subscription_details: { subscription: 'sub_stripe_1', metadata: OURS },
  },
  lines: { object: 'list', data: [], has_more: false, url: '/v1/invoices/in_1/lines' },
  ...over,
});

describe('webhook: mapping', () => {
  it('maps a paid subscription checkout onto checkout.completed, keeping the event id and time', async () => {
    const event = stripeEvent('checkout.session.completed', session());
    expect(await deliver(event)).toEqual({
      id: event.id,
      created: event.created,
      type: 'checkout.completed',
      accountId: 'acct-ours-1',
      subscriptionId: 'sub-ours-1',
      customerId: 'cus_123',
      providerSubscriptionId: 'sub_stripe_1',
      amountCents: 7900,
      currency: 'USD',
    });
  });

  it('counts a checkout that needed no payment as completed, and an expanded customer and subscription by their ids', async () => {
    const event = stripeEvent(
      'checkout.session.completed',
      session({
        payment_status: 'no_payment_required',
        amount_total: 0,
        customer: { id: 'cus_9', object: 'customer' },
        subscription: { id: 'sub_stripe_9', object: 'subscription' },
      }),
    );
    expect(await deliver(event)).toMatchObject({
      type: 'checkout.completed',
      customerId: 'cus_9',
      providerSubscriptionId: 'sub_stripe_9',
      amountCents: 0,
    });
  });

  it('maps a delayed payment that succeeded later onto checkout.completed', async () => {
    const event = stripeEvent('checkout.session.async_payment_succeeded', session());
    expect(await deliver(event)).toMatchObject({
      id: event.id,
      type: 'checkout.completed',
      subscriptionId: 'sub-ours-1',
    });
  });

  it('ignores an unpaid checkout, a checkout in another mode and one without our ids', async () => {
    for (const object of [
      session({ payment_status: 'unpaid' }),
      session({ mode: 'payment' }),
      session({ client_reference_id: null, metadata: {} }),
      session({ metadata: { subscription_id: 'sub-ours-1' } }),
    ]) {
      const event = stripeEvent('checkout.session.completed', object);
      expect(await deliver(event)).toEqual({
        id: event.id,
        created: event.created,
        type: 'ignored',
        providerType: 'checkout.session.completed',
      });
    }
  });

  it("maps each of Stripe's subscription states onto SPEC's three", async () => {
    const expected: Record<string, string> = {
      active: 'active',
      trialing: 'active',
      past_due: 'active',
      incomplete: 'pending',
      canceled: 'cancelled',
      unpaid: 'cancelled',
      incomplete_expired: 'cancelled',
      paused: 'cancelled',
    };
    expect(STRIPE_STATUS).toEqual(expected);
    for (const [stripeStatus, status] of Object.entries(expected)) {
      const event = stripeEvent('customer.subscription.updated', subscription(stripeStatus));
      expect(await deliver(event)).toEqual({
        id: event.id,
        created: event.created,
        type: 'subscription.status',
        accountId: 'acct-ours-1',
        subscriptionId: 'sub-ours-1',
        status,
      });
    }
  });

  it('maps a deleted subscription to cancelled', async () => {
    const event = stripeEvent('customer.subscription.deleted', subscription('canceled'));
    expect(await deliver(event)).toMatchObject({
      type: 'subscription.status',
      subscriptionId: 'sub-ours-1',
      status: 'cancelled',
    });
  });

  it('ignores a subscription without our metadata, and a state Stripe adds later', async () => {
    expect(await deliver(stripeEvent('customer.subscription.updated', subscription('active', {})))).toMatchObject({
      type: 'ignored',
      providerType: 'customer.subscription.updated',
    });
    expect(await deliver(stripeEvent('customer.subscription.updated', subscription('some_new_state')))).toMatchObject({
      type: 'ignored',
    });
  });

  it('maps the final payment failure of an invoice to cancelled and ignores one Stripe will retry', async () => {
    const final = stripeEvent('invoice.payment_failed', invoice({ amount_paid: 0, next_payment_attempt: null }));
    expect(await deliver(final)).toEqual({
      id: final.id,
      created: final.created,
      type: 'subscription.status',
      accountId: 'acct-ours-1',
      subscriptionId: 'sub-ours-1',
      status: 'cancelled',
    });
    const retried = stripeEvent(
      'invoice.payment_failed',
      invoice({ amount_paid: 0, next_payment_attempt: NOW_S + 3 * 86400 }),
    );
    expect(await deliver(retried)).toMatchObject({ type: 'ignored', providerType: 'invoice.payment_failed' });
  });

  it('maps a paid renewal invoice onto renewal.paid and ignores the first invoice (the checkout covers it)', async () => {
    const renewal = stripeEvent('invoice.paid', invoice());
    expect(await deliver(renewal)).toEqual({
      id: renewal.id,
      created: renewal.created,
      type: 'renewal.paid',
      accountId: 'acct-ours-1',
      subscriptionId: 'sub-ours-1',
      amountCents: 7900,
      currency: 'USD',
    });
    expect(
      await deliver(stripeEvent('invoice.paid', invoice({ billing_reason: 'subscription_create' }))),
    ).toMatchObject({ type: 'ignored', providerType: 'invoice.paid' });
  });

  it("finds an invoice's subscription metadata where older API versions put it", async () => {
    const legacy = stripeEvent(
      'invoice.paid',
      invoice({ parent: undefined, subscription: 'sub_stripe_1', subscription_details: { metadata: OURS } }),
    );
    expect(await deliver(legacy)).toMatchObject({
      type: 'renewal.paid',
      subscriptionId: 'sub-ours-1',
      accountId: 'acct-ours-1',
    });
    const line = { id: 'il_1', object: 'line_item', amount: 7900, metadata: OURS };
    const onLines = stripeEvent(
      'invoice.paid',
      invoice({
        parent: null,
        lines: { object: 'list', data: [{ id: 'il_0', object: 'line_item', metadata: {} }, line], has_more: false },
      }),
    );
    expect(await deliver(onLines)).toMatchObject({ type: 'renewal.paid', subscriptionId: 'sub-ours-1' });
    const none = stripeEvent('invoice.paid', invoice({ parent: null }));
    expect(await deliver(none)).toMatchObject({ type: 'ignored', providerType: 'invoice.paid' });
  });

  it('acknowledges any other event type as ignored', async () => {
    const event = stripeEvent('customer.created', { id: 'cus_1', object: 'customer' });
    expect(await deliver(event)).toEqual({
      id: event.id,
      created: event.created,
      type: 'ignored',
      providerType: 'customer.created',
    });
  });
});

describe('webhook: verification', () => {
  const body = JSON.stringify(stripeEvent('checkout.session.completed', session()));

  it('accepts a timestamp at the tolerance either way of the given clock, however far that clock is from the real one', async () => {
    for (const timestamp of [NOW_S - WEBHOOK_TOLERANCE_SECONDS, NOW_S + WEBHOOK_TOLERANCE_SECONDS]) {
      expect(await provider.verifyWebhook(body, signed(body, { timestamp }), NOW)).toMatchObject({
        type: 'checkout.completed',
      });
    }
  });

  it('rejects a signature made with another secret', async () => {
    expect(await rejection(provider.verifyWebhook(body, signed(body, { secret: 'whsec_someone_else' }), NOW))).toBe(
      'signature does not verify',
    );
  });

  it('rejects a body changed after signing, even by a byte of whitespace', async () => {
    const headers = signed(body);
    expect(
      await rejection(provider.verifyWebhook(body.replace('"amount_total":7900', '"amount_total":1'), headers, NOW)),
    ).toBe('signature does not verify');
    expect(await rejection(provider.verifyWebhook(`${body}\n`, headers, NOW))).toBe('signature does not verify');
    expect(await rejection(provider.verifyWebhook(JSON.stringify(JSON.parse(body), null, 2), headers, NOW))).toBe(
      'signature does not verify',
    );
  });

  it('rejects a stale timestamp', async () => {
    expect(
      await rejection(
        provider.verifyWebhook(body, signed(body, { timestamp: NOW_S - WEBHOOK_TOLERANCE_SECONDS - 1 }), NOW),
      ),
    ).toBe('timestamp too old');
  });

  it('rejects a timestamp more than five minutes in the future', async () => {
    expect(
      await rejection(
        provider.verifyWebhook(body, signed(body, { timestamp: NOW_S + WEBHOOK_TOLERANCE_SECONDS + 1 }), NOW),
      ),
    ).toBe('timestamp in the future');
    expect(await rejection(provider.verifyWebhook(body, signed(body, { timestamp: NOW_S + 86_400 }), NOW))).toBe(
      'timestamp in the future',
    );
  });

  it('rejects a stale event against the real clock too: the given clock rules', async () => {
    const real = new Date();
    expect(await rejection(provider.verifyWebhook(body, signed(body, { timestamp: NOW_S }), real))).toBe(
      'timestamp too old',
    );
  });

  it('rejects a missing or malformed signature header', async () => {
    expect(await rejection(provider.verifyWebhook(body, {}, NOW))).toBe('missing Stripe-Signature header');
    expect(await rejection(provider.verifyWebhook(body, { 'stripe-signature': '' }, NOW))).toBe(
      'missing Stripe-Signature header',
    );
    const v1 = signed(body)
      ['stripe-signature'].split(',')
      .find((p) => p.startsWith('v1='))!;
    expect(await rejection(provider.verifyWebhook(body, { 'stripe-signature': v1 }, NOW))).toBe(
      'malformed Stripe-Signature header',
    );
    expect(await rejection(provider.verifyWebhook(body, { 'stripe-signature': `t=${NOW_S}` }, NOW))).toBe(
      'signature does not verify',
    );
    expect(await rejection(provider.verifyWebhook(body, { 'stripe-signature': `t=${NOW_S},v0=abc` }, NOW))).toBe(
      'signature does not verify',
    );
  });

  it('rejects a signed body that is not an event', async () => {
    const notEvent = JSON.stringify({ hello: 'world' });
    expect(await rejection(provider.verifyWebhook(notEvent, signed(notEvent), NOW))).toBe('not a Stripe event');
    const notJson = 'not json';
    expect(await rejection(provider.verifyWebhook(notJson, signed(notJson), NOW))).toBe('not a Stripe event');
    expect(
      await rejection(provider.verifyWebhook(notJson, signed(notJson, { secret: 'whsec_someone_else' }), NOW)),
    ).toBe('signature does not verify');
  });
});
