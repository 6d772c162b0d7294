import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';

/** Billing as configuration shapes it: beta mode, and no payment provider at all (one stack after the other). */
async function planIds(api: ReturnType<typeof client>) {
  const plans = (await api.get('/plans')).body as { id: string; name: string; interval: string }[];
  return {
    free: plans.find((p) => p.name === 'Free')!.id,
    team: plans.find((p) => p.name === 'Team' && p.interval === 'monthly')!.id,
  };
}

describe('in beta mode', () => {
  const ref = useTestStack({ BETA_MODE: 'true' });
  const api = client(() => ref.stack.url);

  it("paid plans and the portal are refused with SPEC's details; Free still applies", async () => {
    const user = await signUp(api);
    const { free, team } = await planIds(api);
    const paid = await api.post('/subscriptions/choose', { plan_id: team }, { token: user.token });
    expect(paid.status).toBe(403);
    expect(paid.body).toEqual({ detail: 'Upgrading to paid plans is disabled in beta mode' });
    const portal = await api.get('/me/billing/portal', { token: user.token });
    expect(portal.status).toBe(400);
    expect(portal.body).toEqual({ detail: 'Billing portal is disabled in beta mode' });
    expect((await api.post('/subscriptions/choose', { plan_id: free }, { token: user.token })).body).toEqual({
      status: 'ok',
      applied: 'free',
    });
  });
});

describe('without a payment provider', () => {
  const ref = useTestStack({ PAYMENT_PROVIDER: 'none' });
  const api = client(() => ref.stack.url);

  it('the portal is not enabled and paid plans cannot be bought', async () => {
    const user = await signUp(api);
    const { team } = await planIds(api);
    const portal = await api.get('/me/billing/portal', { token: user.token });
    expect(portal.status).toBe(400);
    expect(portal.body).toEqual({ detail: 'Billing portal is not enabled' });
    const paid = await api.post('/subscriptions/choose', { plan_id: team }, { token: user.token });
    expect(paid.status).toBe(403);
    expect(paid.body.detail).toMatch(/no payment provider/);
  });
});
