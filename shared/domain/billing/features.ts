import { forbidden, type DomainError } from '#shared/errors';
import type { Plan, PlanFeatures } from './plans.ts';

/** The on/off features of a plan (SPEC "Plan": the boolean ones). */
export type PlanSwitch = { [K in keyof PlanFeatures]: PlanFeatures[K] extends boolean ? K : never }[keyof PlanFeatures];

/**
 * SPEC: "Using a feature the plan lacks answers 403 with a message naming what is missing". The one
 * wording, as the cost estimate's (`NO_COST_ESTIMATE` in tenancy):
 * `Your plan does not include <what> (feature: <feature>). Please upgrade.`
 */
export const planLacks = (what: string, feature: keyof PlanFeatures): string =>
  `Your plan does not include ${what} (feature: ${feature}). Please upgrade.`;
/** That refusal (403). */
export const featureMissing = (what: string, feature: keyof PlanFeatures): DomainError =>
  forbidden(planLacks(what, feature));

/**
 * Refuses unless `plan` has every one of `needed` on, checked in the order given (the first missing
 * one is named). No plan (an account without an active subscription) has no features at all.
 */
export function requireFeatures(
  plan: Plan | undefined,
  needed: readonly PlanSwitch[],
  what: string,
): asserts plan is Plan {
  const missing = needed.find((f) => plan?.features[f] !== true);
  if (missing) throw featureMissing(what, missing);
}
