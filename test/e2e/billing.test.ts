import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp, type Client } from '../helpers/http.ts';
import { captureEvents, createService, readItem } from '../helpers/catalog.ts';
import { projectWithEnv } from '../helpers/tenancy.ts';
import { keys } from '#db/keys';
import { listSubscriptions } from '#domain/billing';

const ref = useTestStack();
const api = client(() => ref.stack.url);
const events = captureEvents();

async function planId(name: string, interval: string) {
  const plans = (await api.get('/plans')).body as { id: string; name: string; interval: string }[];
  return plans.find((p) => p.name === name && p.interval === interval)!.id;
}

/** Waits for the checkout job and answers the payment page's address. */
async function checkoutUrl(a: Client, token: string, jobId: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const res = await a.get(`/subscriptions/checkout-url/${jobId}`, { token });
    if (res.status === 200) return res.body.url;
    expect(res.status, res.text).toBe(202);
    expect(res.body).toEqual({ status: 'pending' });
    await ref.stack.queues.drain();
  }
  throw new Error('checkout job never finished');
}

async function upgrade(token: string, plan: string) {
  const chosen = await api.post('/subscriptions/choose', { plan_id: plan }, { token });
  expect(chosen.status, chosen.text).toBe(200);
  const url = await checkoutUrl(api, token, chosen.body.job_id);
  const paid = await fetch(url, { method: 'POST' });
  expect(paid.status, await paid.clone().text()).toBe(200);
  return { url, jobId: chosen.body.job_id as string };
}

describe('billing on the local payment provider', () => {
  it('Free → Team through checkout, invoice, Team limits; back to Free with a zero invoice', async () => {
    const user = await signUp(api);
    const team = await planId('Team', 'monthly');
    const chosen = await api.post('/subscriptions/choose', { plan_id: team }, { token: user.token });
    expect(chosen.status).toBe(200);
    expect(Object.keys(chosen.body)).toEqual(['job_id']);
    // The current plan keeps running while the payment is pending.
    expect((await api.get('/me/subscription', { token: user.token })).body.plan.name).toBe('Free');

    const url = await checkoutUrl(api, user.token, chosen.body.job_id);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('Team plan');
    expect(html).toContain('79.00 USD / month');
    expect(html).toContain('<form method="post">');
    const paid = await fetch(url, { method: 'POST' });
    expect(paid.status).toBe(200);
    expect(await paid.text()).toContain('Payment received');

    const sub = await api.get('/me/subscription', { token: user.token });
    expect(sub.body.plan.name).toBe('Team');
    expect(sub.body.plan.interval).toBe('monthly');

    const invoices = await api.get('/me/invoices', { token: user.token });
    expect(invoices.status).toBe(200);
    expect(invoices.body.total).toBe(1);
    const [invoice] = invoices.body.items;
    expect(invoice).toMatchObject({
      status: 'paid',
      currency: 'USD',
      subtotal_cents: 7900,
      tax_cents: 0,
      total_cents: 7900,
    });
    expect(invoice.invoice_number).toMatch(/^INV-\d{6}$/);
    expect(invoice.pdf_url).toBe(`${ref.stack.url}/invoice/${invoice.id}`);
    expect(invoice).not.toHaveProperty('line_items');
    const detail = await api.get(`/me/invoices/${invoice.id}`, { token: user.token });
    expect(detail.body.line_items).toEqual([
      { item_type: 'subscription', plan_id: team, description: 'Team plan (monthly)', qty: 1, unit_price_cents: 7900 },
    ]);
    const printable = await api.get(`/invoice/${invoice.id}`, { token: user.token });
    expect(printable.status).toBe(200);
    expect(printable.headers.get('content-type')).toContain('text/html');
    expect(printable.text).toContain(invoice.invoice_number);
    expect(printable.text).toContain('79.00 USD');

    // Team's limits apply at once: more than Free's five services in one environment.
    const { projectId, envId } = await projectWithEnv(api, user.token);
    for (let i = 0; i < 6; i++) await createService(api, user.token, projectId, envId, { name: `svc-${i}` });

    await ref.stack.queues.drain(); // the events reach delivery from the outbox
    const changed = events.filter(
      (e) => e.event.type === 'subscription.changed' && e.event.data.account_id === user.id,
    );
    expect(changed.map((e) => e.event.data)).toEqual([
      {
        account_id: user.id,
        old_plan_id: await planId('Free', 'none'),
        old_plan_name: 'Free',
        new_plan_id: team,
        new_plan_name: 'Team',
      },
    ]);

    const free = await api.post(
      '/subscriptions/choose',
      { plan_id: await planId('Free', 'none') },
      { token: user.token },
    );
    expect(free.status).toBe(200);
    expect(free.body).toEqual({ status: 'ok', applied: 'free' });
    expect((await api.get('/me/subscription', { token: user.token })).body.plan.name).toBe('Free');
    const after = await api.get('/me/invoices', { token: user.token });
    expect(after.body.total).toBe(2);
    expect(after.body.items[0]).toMatchObject({ status: 'paid', total_cents: 0 });
    const subs = await listSubscriptions(user.id);
    expect(subs.filter((s) => s.status === 'active').map((s) => s.plan_id)).toEqual([await planId('Free', 'none')]);
    expect(subs.filter((s) => s.plan_id === team).map((s) => s.status)).toEqual(['cancelled']);
  });

  it('concurrent choices of Free leave exactly one active subscription, each with its own invoice number', async () => {
    for (let round = 0; round < 3; round++) {
      const user = await signUp(api);
      const free = await planId('Free', 'none');
      const results = await Promise.all(
        Array.from({ length: 5 }, () => api.post('/subscriptions/choose', { plan_id: free }, { token: user.token })),
      );
      expect(results.map((r) => r.status)).toEqual(Array(5).fill(200));
      expect((await listSubscriptions(user.id)).filter((s) => s.status === 'active')).toHaveLength(1);
      const numbers = new Set(
        (await api.get('/me/invoices', { token: user.token })).body.items.map(
          (i: { invoice_number: string }) => i.invoice_number,
        ),
      );
      expect(numbers.size).toBe(5);
    }
  });

  it('choosing the same paid plan twice reuses the one pending subscription', async () => {
    const user = await signUp(api);
    const starter = await planId('Starter', 'annual');
    const [a, b] = await Promise.all(
      [1, 2].map(() => api.post('/subscriptions/choose', { plan_id: starter }, { token: user.token })),
    );
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.job_id).not.toBe(b.body.job_id);
    await api.post('/subscriptions/choose', { plan_id: starter }, { token: user.token });
    const pending = (await listSubscriptions(user.id)).filter((s) => s.status === 'pending');
    expect(pending).toHaveLength(1);
    expect(pending[0].plan_id).toBe(starter);
  });

  it("refuses unknown plans, Enterprise+ (by arrangement), the plan already active, and other accounts' jobs and invoices", async () => {
    const user = await signUp(api);
    const other = await signUp(api);
    expect((await api.post('/subscriptions/choose', { plan_id: 'no-such-plan' }, { token: user.token })).body).toEqual({
      detail: 'Plan not found',
    });
    const missing = await api.post(
      '/subscriptions/choose',
      { plan_id: '00000000-0000-4000-8000-0000000000ff' },
      { token: user.token },
    );
    expect(missing.status).toBe(404);
    const custom = await api.post(
      '/subscriptions/choose',
      { plan_id: await planId('Enterprise+', 'custom') },
      { token: user.token },
    );
    expect(custom.status).toBe(403);
    const { jobId } = await upgrade(user.token, await planId('Business', 'monthly'));
    const again = await api.post(
      '/subscriptions/choose',
      { plan_id: await planId('Business', 'monthly') },
      { token: user.token },
    );
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ detail: 'You are already subscribed to this plan' });

    const foreignJob = await api.get(`/subscriptions/checkout-url/${jobId}`, { token: other.token });
    expect(foreignJob.status).toBe(404);
    expect(foreignJob.body).toEqual({ detail: 'Job not found' });
    const [invoice] = (await api.get('/me/invoices', { token: user.token })).body.items;
    for (const path of [`/me/invoices/${invoice.id}`, `/invoice/${invoice.id}`]) {
      const res = await api.get(path, { token: other.token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Invoice not found' });
    }
    expect((await api.get('/me/invoices', { token: other.token })).body).toEqual({ items: [], total: 0 });
  });

  it('a replayed payment event changes nothing; a forged or tampered one is refused', async () => {
    const user = await signUp(api);
    const { url } = await upgrade(user.token, await planId('Starter', 'monthly'));
    // Paying the same checkout page again sends a new event for a subscription no longer pending: nothing changes.
    expect((await fetch(url, { method: 'POST' })).status).toBe(200);
    expect((await api.get('/me/invoices', { token: user.token })).body.total).toBe(1);

    const forged = await api.post(
      '/billing/local/webhook',
      { id: 'evt_x', type: 'checkout.completed' },
      { headers: { 'local-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` } },
    );
    expect(forged.status).toBe(400);
    expect(forged.body).toEqual({ detail: 'Invalid webhook signature' });
    const unsigned = await api.post('/billing/local/webhook', { id: 'evt_x', type: 'checkout.completed' });
    expect(unsigned.status).toBe(400);
    const wrongProvider = await api.post('/billing/stripe/webhook', { id: 'evt_x' });
    expect(wrongProvider.status).toBe(404);
  });

  it('the billing portal opens for a Free account too: no paid subscription, a way back to choose a plan', async () => {
    const user = await signUp(api);
    const portal = await api.get('/me/billing/portal', { token: user.token });
    expect(portal.status, portal.text).toBe(200);
    const page = await fetch(portal.body.url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('No paid subscription');
    expect(html).toMatch(/<a href="http:\/\/localhost:\d+\/billing">Choose a plan<\/a>/); // the portal's return address: the app's billing page
    expect(html).not.toContain('Cancel subscription');
    expect((await fetch(portal.body.url, { method: 'POST' })).status).toBe(400); // nothing to cancel
    expect((await readItem(keys.billingCustomer(user.id)))?.customer_id).toBe(`cus_local_${user.id}`);
  });

  it('the billing portal of a paying account offers to cancel, which falls back to Free', async () => {
    const user = await signUp(api);
    await upgrade(user.token, await planId('Team', 'annual'));
    const portal = await api.get('/me/billing/portal', { token: user.token });
    expect(portal.status, portal.text).toBe(200);
    const page = await fetch(portal.body.url);
    expect(await page.text()).toContain('Cancel subscription');
    const cancelled = await fetch(portal.body.url, { method: 'POST' });
    expect(cancelled.status).toBe(200);
    expect((await api.get('/me/subscription', { token: user.token })).body.plan.name).toBe('Free');
    const stored = await readItem(keys.billingCustomer(user.id));
    expect(stored?.customer_id).toBe(`cus_local_${user.id}`);
  });
});
