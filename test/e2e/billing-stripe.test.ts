import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { startTestStack, type TestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { startFakeStripe, type FakeStripe } from '../../infra/deployed/stand-ins/stripe.ts';
import { listSubscriptions } from '#domain/billing';
import { keys } from '#db/keys';
import { readItem } from '../helpers/catalog.ts';

/** The whole paid flow with Stripe as the provider: the fake Stripe API for outgoing calls, webhooks signed as Stripe signs them. */
const WEBHOOK_SECRET = 'whsec_e2e_secret';
let fake: FakeStripe;
let stack: TestStack;
beforeAll(async () => {
  fake = await startFakeStripe();
  stack = await startTestStack({
    PAYMENT_PROVIDER: 'stripe',
    STRIPE_SECRET_KEY: 'sk_test_e2e',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_BASE: fake.url,
  });
});
afterAll(async () => {
  await stack?.stop();
  await fake?.close();
});
const api = client(() => stack.url);
const stripe = new Stripe('sk_test_unused');

let n = 0;
function stripeEvent(type: string, object: Record<string, unknown>, created = Math.floor(Date.now() / 1000)) {
  const payload = JSON.stringify({
    id: `evt_e2e_${++n}_${Date.now()}`,
    object: 'event',
    type,
    created,
    api_version: '2026-01-28',
    livemode: false,
    data: { object },
  });
  const header = stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
  return { payload, header };
}
const post = (e: { payload: string; header: string }) =>
  api.post('/billing/stripe/webhook', undefined, { raw: e.payload, headers: { 'stripe-signature': e.header } });

async function pendingCheckout(planName = 'Team') {
  const user = await signUp(api);
  const plans = (await api.get('/plans')).body as { id: string; name: string; interval: string }[];
  const plan = plans.find((p) => p.name === planName && p.interval === 'monthly')!;
  const chosen = await api.post('/subscriptions/choose', { plan_id: plan.id }, { token: user.token });
  await stack.queues.drain();
  const ready = await api.get(`/subscriptions/checkout-url/${chosen.body.job_id}`, { token: user.token });
  expect(ready.status, ready.text).toBe(200);
  const sub = (await listSubscriptions(user.id)).find((s) => s.status === 'pending')!;
  return { user, plan, sub, url: ready.body.url as string, jobId: chosen.body.job_id as string };
}

const paid = (accountId: string, subscriptionId: string, stripeSub: string) => ({
  id: `cs_${subscriptionId}`,
  object: 'checkout.session',
  mode: 'subscription',
  payment_status: 'paid',
  client_reference_id: subscriptionId,
  metadata: { subscription_id: subscriptionId, account_id: accountId },
  customer: `cus_${accountId}`,
  subscription: stripeSub,
  amount_total: 7900,
  currency: 'usd',
});
const stripeSubscription = (accountId: string, subscriptionId: string, stripeSub: string, status: string) => ({
  id: stripeSub,
  object: 'subscription',
  status,
  metadata: { subscription_id: subscriptionId, account_id: accountId },
});

describe('billing with Stripe', () => {
  it('checkout → Stripe checkout URL → paid event → Team; the portal opens on the customer; Free cancels at Stripe', async () => {
    const { user, sub, url, jobId } = await pendingCheckout();
    expect(url).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/);
    const made = fake.requests.find((r) => r.path === '/v1/checkout/sessions' && r.idempotencyKey === jobId)!;
    expect(made.body).toMatchObject({ mode: 'subscription', client_reference_id: sub.id, customer_email: user.email });

    const event = stripeEvent('checkout.session.completed', paid(user.id, sub.id, `sub_live_${sub.id}`));
    expect((await post(event)).body).toEqual({ received: true, outcome: 'applied' });
    expect((await post(event)).body).toEqual({ received: true, outcome: 'duplicate' });
    expect((await api.get('/me/subscription', { token: user.token })).body.plan.name).toBe('Team');
    const invoices = (await api.get('/me/invoices', { token: user.token })).body;
    expect(invoices.total).toBe(1);
    expect(invoices.items[0]).toMatchObject({ total_cents: 7900, currency: 'USD' });

    const portal = await api.get('/me/billing/portal', { token: user.token });
    expect(portal.status, portal.text).toBe(200);
    expect(fake.requests.at(-1)).toMatchObject({
      path: '/v1/billing_portal/sessions',
      body: { customer: `cus_${user.id}` },
    });

    const free = (await api.get('/plans')).body.find((p: { name: string }) => p.name === 'Free');
    expect((await api.post('/subscriptions/choose', { plan_id: free.id }, { token: user.token })).body).toEqual({
      status: 'ok',
      applied: 'free',
    });
    await stack.queues.drain();
    expect(fake.requests.some((r) => r.method === 'DELETE' && r.path === `/v1/subscriptions/sub_live_${sub.id}`)).toBe(
      true,
    );
    // Stripe then reports the deletion: already cancelled here, nothing changes.
    expect(
      (
        await post(
          stripeEvent(
            'customer.subscription.deleted',
            stripeSubscription(user.id, sub.id, `sub_live_${sub.id}`, 'canceled'),
          ),
        )
      ).body.outcome,
    ).toBe('ignored');
    expect((await api.get('/me/subscription', { token: user.token })).body.plan.name).toBe('Free');
  });

  it('the portal of an account that never paid makes its Stripe customer once and opens on it', async () => {
    const user = await signUp(api);
    const first = await api.get('/me/billing/portal', { token: user.token });
    expect(first.status, first.text).toBe(200);
    const made = [...fake.customers.values()].filter((c) => c.metadata.account_id === user.id);
    expect(made).toEqual([expect.objectContaining({ email: user.email })]);
    expect(fake.requests.at(-1)).toMatchObject({ path: '/v1/billing_portal/sessions', body: { customer: made[0].id } });
    expect((await api.get('/me/billing/portal', { token: user.token })).status).toBe(200);
    expect([...fake.customers.values()].filter((c) => c.metadata.account_id === user.id)).toHaveLength(1);
    expect(fake.requests.at(-1)).toMatchObject({ path: '/v1/billing_portal/sessions', body: { customer: made[0].id } });
  });

  it('concurrent first portal calls of one account make one Stripe customer, round after round', async () => {
    for (let round = 0; round < 8; round++) {
      const user = await signUp(api);
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => api.get('/me/billing/portal', { token: user.token })),
      );
      expect(
        answers.map((a) => a.status),
        `round ${round}`,
      ).toEqual([200, 200, 200, 200]);
      const made = [...fake.customers.values()].filter((c) => c.metadata.account_id === user.id);
      expect(made, `round ${round}`).toHaveLength(1);
      const portals = fake.requests.filter((r) => r.path === '/v1/billing_portal/sessions').slice(-4);
      expect(
        portals.map((r) => r.body.customer),
        `round ${round}`,
      ).toEqual(Array(4).fill(made[0].id));
      expect((await readItem(keys.billingCustomer(user.id)))?.customer_id, `round ${round}`).toBe(made[0].id);
    }
  });

  it('out of order: a deletion before the paid checkout wins; a stale "active" update after a cancellation changes nothing', async () => {
    const a = await pendingCheckout();
    await post(
      stripeEvent('customer.subscription.deleted', stripeSubscription(a.user.id, a.sub.id, 'sub_live_a', 'canceled')),
    );
    expect(
      (
        await post(
          stripeEvent(
            'checkout.session.completed',
            paid(a.user.id, a.sub.id, 'sub_live_a'),
            Math.floor(Date.now() / 1000) - 30,
          ),
        )
      ).body.outcome,
    ).toBe('ignored');
    expect((await api.get('/me/subscription', { token: a.user.token })).body.plan.name).toBe('Free');

    const b = await pendingCheckout();
    await post(stripeEvent('checkout.session.completed', paid(b.user.id, b.sub.id, 'sub_live_b')));
    await post(
      stripeEvent('customer.subscription.updated', stripeSubscription(b.user.id, b.sub.id, 'sub_live_b', 'unpaid')),
    );
    expect((await api.get('/me/subscription', { token: b.user.token })).body.plan.name).toBe('Free');
    expect(
      (
        await post(
          stripeEvent('customer.subscription.updated', stripeSubscription(b.user.id, b.sub.id, 'sub_live_b', 'active')),
        )
      ).body.outcome,
    ).toBe('ignored');
    expect((await api.get('/me/subscription', { token: b.user.token })).body.plan.name).toBe('Free');
  });

  it('a confirmed downgrade to a smaller paid plan moves the Stripe subscription to its price', async () => {
    const { user, sub } = await pendingCheckout();
    await post(stripeEvent('checkout.session.completed', paid(user.id, sub.id, `sub_live_${sub.id}`)));
    const starter = (await api.get('/plans')).body.find(
      (p: { name: string; interval: string }) => p.name === 'Starter' && p.interval === 'monthly',
    );
    const res = await api.post('/me/downgrade/confirm', { to_plan_id: starter.id }, { token: user.token });
    expect(res.status, res.text).toBe(200);
    await stack.queues.drain();
    const update = fake.requests.find((r) => r.method === 'POST' && r.path === `/v1/subscriptions/sub_live_${sub.id}`);
    expect(update?.body).toMatchObject({
      proration_behavior: 'none',
      items: [{ price_data: { unit_amount: '2900' } }],
    });
    expect((await api.get('/me/subscription', { token: user.token })).body.plan.name).toBe('Starter');
  });

  it('refuses a webhook signed with another secret or replayed outside the tolerance', async () => {
    const payload = JSON.stringify({
      id: 'evt_forged',
      object: 'event',
      type: 'checkout.session.completed',
      created: 1,
      data: { object: {} },
    });
    const forged = await api.post('/billing/stripe/webhook', undefined, {
      raw: payload,
      headers: { 'stripe-signature': stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_other' }) },
    });
    expect(forged.status).toBe(400);
    // A minute beyond the 5-minute tolerance either way, so that a slow request cannot bring the future one inside
    // it (the edge itself: test/integration/stripe-provider.test.ts, with a fixed clock).
    const stale = stripe.webhooks.generateTestHeaderString({
      payload,
      secret: WEBHOOK_SECRET,
      timestamp: Math.floor(Date.now() / 1000) - 360,
    });
    expect(
      (await api.post('/billing/stripe/webhook', undefined, { raw: payload, headers: { 'stripe-signature': stale } }))
        .status,
    ).toBe(400);
    const future = stripe.webhooks.generateTestHeaderString({
      payload,
      secret: WEBHOOK_SECRET,
      timestamp: Math.floor(Date.now() / 1000) + 360,
    });
    expect(
      (await api.post('/billing/stripe/webhook', undefined, { raw: payload, headers: { 'stripe-signature': future } }))
        .body,
    ).toEqual({ detail: 'Invalid webhook signature' });
  });
});
