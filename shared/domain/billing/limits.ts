import type { TransactStep } from '#db/transact';
import type { CounterLimit } from '#db/counter-moves';
import { counterStep, passesMax } from '#db/steps';
import { forbidden, type DomainError } from '#shared/errors';
import type { Plan } from './plans.ts';

/**
 * Plan limits, in one place: what each quota is under a plan, and the one refusal format
 * `<Kind> limit reached for your '<plan>' plan (max N<scope>). Please upgrade <remedy>.`
 * (SPEC fixes the project and service wordings; the others follow them). Counters live on the
 * owning item and move in the creating transaction, so concurrent creates never exceed a limit.
 */
/** A quota: where the plan states it, and the words of its refusal. */
export interface Quota {
  kind: string;
  max(plan: Plan): number | null;
  scope: string;
  remedy: string;
}

// One constant per quota (not one table), so a function's bundle carries only the quotas it enforces.
export const PROJECTS_QUOTA: Quota = {
  kind: 'Project',
  max: (p) => p.max_projects,
  scope: '',
  remedy: 'to create more projects',
};
export const ENVIRONMENTS_QUOTA: Quota = {
  kind: 'Environment',
  max: (p) => p.max_envs_per_project,
  scope: ' per project',
  remedy: 'to create more environments',
};
/** SPEC "Limits" 3: one number, enforced per project and per environment; add-ons raise both. */
export const SERVICES_QUOTA: Quota = {
  kind: 'Service',
  max: (p) => p.max_services,
  scope: ' per project including add-ons',
  remedy: 'or archive services',
};
export const PROJECT_USERS_QUOTA: Quota = {
  kind: 'Project user',
  max: (p) => p.max_project_users,
  scope: '',
  remedy: 'to add more project users',
};
export const CUSTOM_ROLES_QUOTA: Quota = {
  kind: 'Custom role',
  max: (p) => p.features.rbac_custom_roles_limit,
  scope: '',
  remedy: 'to create more custom roles',
};
export const API_KEYS_QUOTA: Quota = {
  kind: 'API key',
  max: (p) => p.max_api_keys_per_user,
  scope: '',
  remedy: 'to create more API keys',
};

/** The quota under `plan`, raised by `addon` (project quota add-ons); null is unlimited. */
export function quotaOf(plan: Plan, quota: Quota, addon = 0): number | null {
  const max = quota.max(plan);
  return max === null || max === undefined ? null : max + addon;
}

/** The refusal when a quota is reached. */
export function quotaReached(plan: Plan, quota: Quota, max: number | null): DomainError {
  return forbidden(
    `${quota.kind} limit reached for your '${plan.name}' plan (max ${max}${quota.scope}). Please upgrade ${quota.remedy}.`,
  );
}

/** A quota under `plan` (raised by `addon`) as a counter's limit: its max and its refusal (for counter moves, db/counter-moves.ts). */
export function quotaLimit(plan: Plan, quota: Quota, addon = 0): CounterLimit {
  const max = quotaOf(plan, quota, addon);
  return { max, refusal: quotaReached(plan, quota, max) };
}

/** Refuses, before anything is written, when `units` more on the count read would pass the limit (the write's own condition still decides). */
export function requireRoom(limit: CounterLimit, count: number, units = 1): void {
  if (passesMax(count, units, limit.max)) throw limit.refusal;
}

/**
 * The transaction step taking `units` (one by default; an import takes a chunk's worth at once) of
 * `quota` on the counter `counter` of the item at `key`, refused when the count would pass the limit.
 */
export function takeQuotaStep(
  key: { PK: string; SK: string },
  counter: string,
  plan: Plan,
  quota: Quota,
  addon = 0,
  units = 1,
): TransactStep {
  const limit = quotaLimit(plan, quota, addon);
  return counterStep(key, { [counter]: units }, { max: { [counter]: limit.max }, failWith: limit.refusal });
}
