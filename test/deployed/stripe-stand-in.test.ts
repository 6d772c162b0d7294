import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeStripe, STRIPE_PAGES, type FakeStripe } from '../../infra/deployed/stand-ins/stripe.ts';
import { stripeProvider } from '../../shared/domain/billing/payments/stripe-provider.ts';
import type { PaymentProvider } from '../../shared/domain/billing/payments/provider.ts';

/**
 * start:deployed's Stripe stand-in as Stripe's hosted side: its checkout and portal pages, and
 * the signed events they send to the webhook, read by the product's own Stripe adapter. The pages are served
 * here from a server of the test's own, as the site serves them under STRIPE_PAGES.
 */
const KEYS = { secretKey: 'sk_test_stand_in', webhookSecret: 'whsec_stand_in' };
let stripe: FakeStripe;
let provider: PaymentProvider;
let site: Server;
let siteUrl: string;
/** What the webhook route got, and what it answers. */
const hooks: { body: string; headers: IncomingHttpHeaders }[] = [];
let hookStatus = 200;

beforeAll(async () => {
  site = createServer((req, res) => {
    if (req.url === '/billing/stripe/webhook') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        hooks.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
        res.writeHead(hookStatus).end();
      });
      return;
    }
    void stripe.page(req, res).then((served) => served || res.writeHead(404).end());
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  stripe = await startFakeStripe({
    secretKey: KEYS.secretKey,
    pages: `${siteUrl}${STRIPE_PAGES}`,
    webhook: { url: `${siteUrl}/billing/stripe/webhook`, secret: KEYS.webhookSecret },
  });
  provider = stripeProvider({ ...KEYS, apiBase: stripe.url }, Stripe);
});
afterAll(async () => {
  await stripe?.close();
  site?.close();
});
beforeEach(() => {
  hooks.length = 0;
  hookStatus = 200;
});

const TEAM = {
  id: '00000000-0000-4000-8000-000000000004',
  name: 'Team',
  interval: 'monthly',
  price_cents: 7900,
  currency: 'USD',
};
const openCheckout = (subscriptionId = `sub-ours-${Math.random().toString(36).slice(2)}`) =>
  provider.createCheckout({
    subscriptionId,
    accountId: 'acct-1',
    email: 'ann@example.com',
    plan: TEAM,
    customerId: null,
    successUrl: `${siteUrl}/billing/success?subscription_id=${subscriptionId}`,
    cancelUrl: `${siteUrl}/billing/cancelled`,
    idempotencyKey: `job-${subscriptionId}`,
  });
/** The last event the webhook got, verified and mapped by the product's adapter. */
const lastEvent = () =>
  provider.verifyWebhook(hooks.at(-1)!.body, hooks.at(-1)!.headers as Record<string, string>, new Date());

describe("the Stripe stand-in's hosted pages", () => {
  it('checkout: a page on the given origin with a Pay button; paying sends a signed checkout.session.completed the adapter accepts, and returns to success_url', async () => {
    const { url } = await openCheckout('sub-ours-1');
    expect(url).toMatch(new RegExp(`^${siteUrl}/_stripe/checkout/cs_test_`));
    const page = await fetch(url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<button type="submit">Pay 79.00 USD / month</button>');
    expect(html).toContain('Billed to ann@example.com');
    expect(hooks).toEqual([]);

    const paid = await fetch(url, { method: 'POST', redirect: 'manual' });
    expect([paid.status, paid.headers.get('location')]).toEqual([
      303,
      `${siteUrl}/billing/success?subscription_id=sub-ours-1`,
    ]);
    expect(hooks).toHaveLength(1);
    expect(await lastEvent()).toMatchObject({
      type: 'checkout.completed',
      accountId: 'acct-1',
      subscriptionId: 'sub-ours-1',
      customerId: expect.stringMatching(/^cus_/),
      providerSubscriptionId: expect.stringMatching(/^sub_/),
      amountCents: 7900,
      currency: 'USD',
    });
    // Paid once: the page says so, and a second POST pays nothing.
    expect(await (await fetch(url)).text()).toContain('<h1>Paid</h1>');
    expect((await fetch(url, { method: 'POST', redirect: 'manual' })).status).toBe(409);
    expect(hooks).toHaveLength(1);
  });

  it("portal: lists the customer's subscription with a Cancel button; cancelling sends a signed customer.subscription.deleted the adapter maps to cancelled", async () => {
    await fetch((await openCheckout('sub-ours-2')).url, { method: 'POST', redirect: 'manual' });
    const { customerId, providerSubscriptionId } = (await lastEvent()) as {
      customerId: string;
      providerSubscriptionId: string;
    };
    const url = await provider.portalUrl({
      customerId,
      accountId: 'acct-1',
      subscriptionId: 'sub-ours-2',
      returnUrl: `${siteUrl}/billing`,
    });
    expect(url).toMatch(new RegExp(`^${siteUrl}/_stripe/portal/`));
    expect(await (await fetch(url)).text()).toContain('Cancel subscription');
    const cancelled = await fetch(url, {
      method: 'POST',
      body: new URLSearchParams({ subscription: providerSubscriptionId }),
      redirect: 'manual',
    });
    expect([cancelled.status, cancelled.headers.get('location')]).toEqual([303, `${siteUrl}/billing`]);
    expect(await lastEvent()).toMatchObject({
      type: 'subscription.status',
      accountId: 'acct-1',
      subscriptionId: 'sub-ours-2',
      status: 'cancelled',
    });
    expect(await (await fetch(url)).text()).toContain('No active subscription.');
    expect(stripe.subscriptions.get(providerSubscriptionId)?.status).toBe('canceled');
  });

  it('shows a webhook that refused the event (502, its status) instead of returning to the product', async () => {
    hookStatus = 400;
    const res = await fetch((await openCheckout()).url, { method: 'POST', redirect: 'manual' });
    expect(res.status).toBe(502);
    expect(await res.text()).toContain('the webhook answered 400');
    expect(stripe.events.at(-1)).toMatchObject({ status: 400, event: { type: 'checkout.session.completed' } });
  });

  it('answers only its own secret key, and 404 for a session it did not make', async () => {
    const other = stripeProvider(
      { secretKey: 'sk_test_other', webhookSecret: KEYS.webhookSecret, apiBase: stripe.url },
      Stripe,
    );
    await expect(
      other.createCustomer({ accountId: 'acct-2', email: 'bob@example.com', idempotencyKey: 'k-bob' }),
    ).rejects.toThrow(/Invalid API Key/);
    expect((await fetch(`${siteUrl}/_stripe/checkout/cs_test_unknown`)).status).toBe(404);
  });
});
