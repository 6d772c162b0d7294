import { describe, expect, it } from 'vitest';
import { PLAN_CATALOGUE } from '#domain/billing';

describe('plan catalogue', () => {
  it('prices annual plans at 20% off twelve monthly payments (rounded down to whole dollars)', () => {
    for (const annual of PLAN_CATALOGUE.filter((p) => p.interval === 'annual')) {
      const monthly = PLAN_CATALOGUE.find((p) => p.name === annual.name && p.interval === 'monthly')!;
      expect(annual.price_cents).toBe(Math.floor((monthly.price_cents * 12 * 0.8) / 100) * 100);
      const { id: _a, interval: _b, price_cents: _c, ...limitsA } = annual;
      const { id: _d, interval: _e, price_cents: _f, ...limitsM } = monthly;
      expect(limitsA).toEqual(limitsM);
    }
  });

  it('gives every plan the documented mixed feature shape', () => {
    for (const { features: f } of PLAN_CATALOGUE) {
      for (const k of [
        'crud_basic',
        'crud_pro',
        'crud_api',
        'multi_cloud',
        'scheduler_ansible',
        'ai_analysis',
      ] as const)
        expect(typeof f[k]).toBe('boolean');
      for (const k of [
        'users_included',
        'extra_user_price_cents',
        'api_rate_limit',
        'data_retention_days',
        'rbac_custom_roles_limit',
      ] as const)
        expect(typeof f[k]).toBe('number');
      expect(typeof f.cost_estimate).toBe('string');
      expect(Array.isArray(f.providers) && Array.isArray(f.auto_discovery)).toBe(true);
      expect(f.monitoring).toEqual({ enabled: expect.any(Boolean), integrations: expect.any(Array) });
    }
  });

  it('has unique ids', () => {
    expect(new Set(PLAN_CATALOGUE.map((p) => p.id)).size).toBe(10);
  });
});
