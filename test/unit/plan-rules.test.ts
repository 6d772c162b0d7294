import { describe, expect, it } from 'vitest';
import { isDowngrade, isFreePlan, type PlanTerms } from '../../clients/typescript/src/plans.ts';

/** The plan rules the dashboard and the service share (`shared/domain/billing/plan-rules.ts`, copied to `clients/typescript/src/plans.ts`). */
const plan = (over: Partial<PlanTerms>): PlanTerms => ({
  interval: 'monthly',
  price_cents: 2900,
  max_projects: 3,
  max_envs_per_project: 3,
  max_services: 50,
  max_project_users: 5,
  max_api_keys_per_user: 5,
  ...over,
});
const free = plan({ interval: 'none', price_cents: 0, max_projects: 1, max_services: 10 });
const starter = plan({});
const team = plan({ price_cents: 7900, max_projects: 10, max_services: 200 });
const unlimited = plan({ price_cents: 49900, max_projects: null, max_services: null });

describe('plan rules', () => {
  it('calls a plan free when it costs nothing or has no interval, never one arranged with sales', () => {
    expect([
      isFreePlan(free),
      isFreePlan(plan({ price_cents: 0 })),
      isFreePlan(plan({ interval: 'custom', price_cents: 0 })),
      isFreePlan(starter),
    ]).toEqual([true, true, false, false]);
  });

  it('calls a change a downgrade when it goes to Free, lowers a limit (unlimited is the highest), or asks less for the same limits', () => {
    expect(isDowngrade(starter, free)).toBe(true);
    expect(isDowngrade(free, starter)).toBe(false);
    expect(isDowngrade(team, starter)).toBe(true);
    expect(isDowngrade(starter, team)).toBe(false);
    expect(isDowngrade(unlimited, team)).toBe(true);
    expect(isDowngrade(team, unlimited)).toBe(false);
    // Monthly and annual of one tier: the same limits, a different price.
    expect(isDowngrade(plan({ interval: 'annual', price_cents: 27800 }), starter)).toBe(true);
    expect(isDowngrade(starter, plan({ interval: 'annual', price_cents: 27800 }))).toBe(false);
  });
});
