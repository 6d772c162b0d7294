import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { listSubscriptions, localEventId, signLocalEvent, type PaymentEvent } from '#domain/billing';

/** The webhook route as the payment provider calls it: redeliveries, out-of-order events, the per-address limit. */
const ref = useTestStack();
const api = client(() => ref.stack.url);

async function pendingTeam() {
  const user = await signUp(api);
  const plans = (await api.get('/plans')).body as { id: string; name: string; interval: string }[];
  const team = plans.find((p) => p.name === 'Team' && p.interval === 'monthly')!;
  expect((await api.post('/subscriptions/choose', { plan_id: team.id }, { token: user.token })).status).toBe(200);
  await ref.stack.queues.drain();
  const sub = (await listSubscriptions(user.id)).find((s) => s.status === 'pending')!;
  return { user, sub, team };
}

const now = () => Math.floor(Date.now() / 1000);
const paidEvent = (accountId: string, subscriptionId: string, created = now()): PaymentEvent => ({
  id: localEventId(),
  created,
  type: 'checkout.completed',
  accountId,
  subscriptionId,
  customerId: `cus_${accountId}`,
  providerSubscriptionId: `sub_${subscriptionId}`,
  amountCents: 7900,
  currency: 'USD',
});

async function deliver(event: PaymentEvent, at = new Date()) {
  const { body, headers } = await signLocalEvent(event, at);
  return api.post('/billing/local/webhook', undefined, { raw: body, headers });
}

describe('payment webhook', () => {
  it('a redelivered event (same id, same signed body) changes nothing', async () => {
    const { user, sub } = await pendingTeam();
    const event = paidEvent(user.id, sub.id);
    const { body, headers } = await signLocalEvent(event, new Date());
    const first = await api.post('/billing/local/webhook', undefined, { raw: body, headers });
    expect(first.body).toEqual({ received: true, outcome: 'applied' });
    const results = await Promise.all(
      Array.from({ length: 5 }, () => api.post('/billing/local/webhook', undefined, { raw: body, headers })),
    );
    for (const r of results) expect(r.body).toEqual({ received: true, outcome: 'duplicate' });
    expect((await api.get('/me/invoices', { token: user.token })).body.total).toBe(1);
  });

  it('concurrent deliveries of one event apply it once', async () => {
    for (let round = 0; round < 5; round++) {
      const { user, sub } = await pendingTeam();
      const { body, headers } = await signLocalEvent(paidEvent(user.id, sub.id), new Date());
      const results = await Promise.all(
        Array.from({ length: 6 }, () => api.post('/billing/local/webhook', undefined, { raw: body, headers })),
      );
      expect(results.map((r) => r.status)).toEqual(Array(6).fill(200));
      expect(results.filter((r) => r.body.outcome === 'applied')).toHaveLength(1);
      expect((await api.get('/me/invoices', { token: user.token })).body.total).toBe(1);
    }
  });

  it('out of order: a cancellation that overtakes the payment is not undone by it', async () => {
    const { user, sub } = await pendingTeam();
    const cancelled: PaymentEvent = {
      id: localEventId(),
      created: now(),
      type: 'subscription.status',
      accountId: user.id,
      subscriptionId: sub.id,
      status: 'cancelled',
    };
    expect((await deliver(cancelled)).body.outcome).toBe('applied');
    expect((await deliver(paidEvent(user.id, sub.id, now() - 5))).body.outcome).toBe('ignored');
    expect((await api.get('/me/subscription', { token: user.token })).body.plan.name).toBe('Free');
    expect((await listSubscriptions(user.id)).find((s) => s.id === sub.id)?.status).toBe('cancelled');
    expect((await api.get('/me/invoices', { token: user.token })).body.total).toBe(0);
  });

  it('cancelling the paid plan falls back to Free; an "active" status after it does not revive it', async () => {
    const { user, sub } = await pendingTeam();
    await deliver(paidEvent(user.id, sub.id));
    expect((await api.get('/me/subscription', { token: user.token })).body.plan.name).toBe('Team');
    await deliver({
      id: localEventId(),
      created: now(),
      type: 'subscription.status',
      accountId: user.id,
      subscriptionId: sub.id,
      status: 'cancelled',
    });
    expect((await api.get('/me/subscription', { token: user.token })).body.plan.name).toBe('Free');
    expect(
      (
        await deliver({
          id: localEventId(),
          created: now() - 60,
          type: 'subscription.status',
          accountId: user.id,
          subscriptionId: sub.id,
          status: 'active',
        })
      ).body.outcome,
    ).toBe('ignored');
    expect((await api.get('/me/subscription', { token: user.token })).body.plan.name).toBe('Free');
  });

  it('a renewal adds a paid invoice; invoice numbers are unique and gapless under concurrency', async () => {
    const { user, sub } = await pendingTeam();
    await deliver(paidEvent(user.id, sub.id));
    const renewals = Array.from(
      { length: 8 },
      (): PaymentEvent => ({
        id: localEventId(),
        created: now(),
        type: 'renewal.paid',
        accountId: user.id,
        subscriptionId: sub.id,
        amountCents: 7900,
        currency: 'USD',
      }),
    );
    const results = await Promise.all(renewals.map((e) => deliver(e)));
    expect(results.map((r) => r.body.outcome)).toEqual(Array(8).fill('applied'));
    const { items } = (await api.get('/me/invoices', { token: user.token })).body as {
      items: { invoice_number: string }[];
    };
    const numbers = items.map((i) => Number(i.invoice_number.slice(4))).sort((a, b) => a - b);
    expect(numbers).toHaveLength(9);
    expect(numbers.at(-1)! - numbers[0]).toBe(8);
  });

  it('stale and future timestamps are refused', async () => {
    const { user, sub } = await pendingTeam();
    // A minute beyond the 5-minute tolerance either way: a second past it turned into one inside it when the
    // request reached the server more than a second after it was signed (seen on a loaded machine). The edge
    // itself is held by test/integration/stripe-provider.test.ts with a fixed clock.
    const old = await deliver(paidEvent(user.id, sub.id), new Date(Date.now() - 360_000));
    const future = await deliver(paidEvent(user.id, sub.id), new Date(Date.now() + 360_000));
    expect([old.status, future.status]).toEqual([400, 400]);
    expect((await listSubscriptions(user.id)).find((s) => s.id === sub.id)?.status).toBe('pending');
  });
});
