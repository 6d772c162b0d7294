/**
 * Rules on plans as the API returns them (`GET /plans`, a subscription's `plan`) that a screen must know
 * before it calls: which plan change is a downgrade (it then goes through the preflight, not the
 * checkout). The one place of each rule: the service decides with these functions, and the client
 * package carries a copy of this file made by `npm run generate -w clients/typescript`
 * (`clients/typescript/src/plans.ts`; a test fails while it differs), so the dashboard and the service
 * cannot disagree while the service imports nothing of the client. Pure, no imports.
 */

/** The limits a plan change compares; `null` is unlimited. */
export const PLAN_LIMITS = [
  'max_projects',
  'max_envs_per_project',
  'max_services',
  'max_project_users',
  'max_api_keys_per_user',
] as const;

/** What these rules read of a plan. */
export type PlanTerms = { interval: string; price_cents: number } & {
  [L in (typeof PLAN_LIMITS)[number]]: number | null;
};

/** SPEC: a free plan costs nothing (price_cents 0) or has no billing interval; one arranged with sales is never free. */
export const isFreePlan = (p: Pick<PlanTerms, 'interval' | 'price_cents'>): boolean =>
  p.interval === 'none' || (p.price_cents === 0 && p.interval !== 'custom');

const lower = (to: number | null, from: number | null) => to !== null && (from === null || to < from);

/** A downgrade: from a paid plan to a free one; otherwise a lower limit, or the same limits for less. */
export function isDowngrade(from: PlanTerms, to: PlanTerms): boolean {
  if (isFreePlan(to) !== isFreePlan(from)) return isFreePlan(to);
  return (
    PLAN_LIMITS.some((l) => lower(to[l], from[l])) ||
    (PLAN_LIMITS.every((l) => to[l] === from[l]) && to.price_cents < from.price_cents)
  );
}
