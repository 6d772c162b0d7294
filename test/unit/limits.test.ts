import { describe, expect, it } from 'vitest';
import {
  PLAN_CATALOGUE,
  quotaLimit,
  quotaOf,
  quotaReached,
  requireRoom,
  takeQuotaStep,
  API_KEYS_QUOTA,
  ENVIRONMENTS_QUOTA,
  PROJECTS_QUOTA,
  PROJECT_USERS_QUOTA,
  SERVICES_QUOTA,
} from '#domain/billing';

const plan = (name: string) => PLAN_CATALOGUE.find((p) => p.name === name)!;

describe('plan limits (billing/limits)', () => {
  it('reads each quota from the plan, raised by add-ons; Enterprise+ is unlimited', () => {
    expect(quotaOf(plan('Free'), PROJECTS_QUOTA)).toBe(1);
    expect(quotaOf(plan('Starter'), ENVIRONMENTS_QUOTA)).toBe(3);
    expect(quotaOf(plan('Team'), SERVICES_QUOTA, 20)).toBe(120);
    expect(quotaOf(plan('Business'), PROJECT_USERS_QUOTA)).toBe(100);
    expect(quotaOf(plan('Enterprise'), API_KEYS_QUOTA)).toBe(200);
    expect(quotaOf(plan('Enterprise+'), SERVICES_QUOTA, 20)).toBeNull();
  });

  it("words every refusal in one format, with SPEC's project and service wordings", () => {
    expect(quotaReached(plan('Free'), PROJECTS_QUOTA, 1)).toMatchObject({
      kind: 'forbidden',
      detail: "Project limit reached for your 'Free' plan (max 1). Please upgrade to create more projects.",
    });
    expect(quotaReached(plan('Team'), SERVICES_QUOTA, 120).detail).toBe(
      "Service limit reached for your 'Team' plan (max 120 per project including add-ons). Please upgrade or archive services.",
    );
    expect(quotaReached(plan('Starter'), ENVIRONMENTS_QUOTA, 3).detail).toBe(
      "Environment limit reached for your 'Starter' plan (max 3 per project). Please upgrade to create more environments.",
    );
  });

  it('takes a unit only while the counter stays within the limit, with no bound when unlimited', () => {
    const key = { PK: 'PROJECT#p', SK: 'PROJECT' };
    const limited = takeQuotaStep(key, 'service_count', plan('Free'), SERVICES_QUOTA);
    expect(limited.Update?.ConditionExpression).toContain('<= :room0');
    expect(limited.Update?.ExpressionAttributeValues).toMatchObject({ ':room0': 4, ':d0': 1 });
    expect(limited.failWith?.detail).toContain("'Free' plan (max 5 per project");
    const unlimited = takeQuotaStep(key, 'service_count', plan('Enterprise+'), SERVICES_QUOTA);
    expect(unlimited.Update?.ConditionExpression).toBe('attribute_exists(PK)');
  });
});

describe('limit enforcement (billing/limits)', () => {
  it("refuses before writing only when the units would pass the limit, with the quota's refusal", () => {
    const limit = quotaLimit(plan('Free'), PROJECTS_QUOTA);
    expect(limit).toMatchObject({
      max: 1,
      refusal: {
        kind: 'forbidden',
        detail: expect.stringContaining("Project limit reached for your 'Free' plan (max 1)"),
      },
    });
    expect(() => requireRoom(limit, 0)).not.toThrow();
    expect(() => requireRoom(limit, 1)).toThrow(limit.refusal);
    expect(() => requireRoom(quotaLimit(plan('Team'), SERVICES_QUOTA, 20), 100, 20)).not.toThrow();
    expect(() => requireRoom(quotaLimit(plan('Team'), SERVICES_QUOTA, 20), 100, 21)).toThrow('max 120 per project');
    expect(() => requireRoom(quotaLimit(plan('Enterprise+'), SERVICES_QUOTA), 10_000)).not.toThrow();
  });
});
