import { keys } from '#db/keys';
import { queryPartition } from '#db/query';
import type { AppContext } from '#shared/context';
import { type Plan, type PlanFeatures, planEntity, type StoredPlanFeatures } from './plan-entity.ts';

export type { Plan, PlanFeatures } from './plan-entity.ts';

/** The Free plan: a customer's plan when nothing else applies (fixed, like every catalogue id). */
export const FREE_PLAN_ID = '00000000-0000-4000-8000-000000000001';

/** Plans change only by seeding, so each process keeps them for a minute instead of reading per request. */
const CACHE_MS = 60_000;
let cache: { at: number; plans: Promise<Plan[]> } | undefined;

function listPlans(): Promise<Plan[]> {
  if (!cache || Date.now() - cache.at > CACHE_MS) {
    const plans = queryPartition(keys.plans, '').then((items) =>
      items.map((i) => inDocumentedOrder(planEntity.decode(i))),
    );
    cache = { at: Date.now(), plans };
    plans.catch(() => (cache = undefined));
  }
  return cache.plans;
}

/**
 * `decode` copies a plan's fields in the documented order. Its features are a map, which DynamoDB
 * returns in no particular order and `decode` copies as stored (an older item lacks the switches
 * added since): clients read them in the documented order, the missing switches off.
 */
function inDocumentedOrder(p: Plan): Plan {
  return { ...p, features: featuresInOrder(p.features) };
}

function featuresInOrder(f: StoredPlanFeatures): PlanFeatures {
  return {
    crud_basic: f.crud_basic,
    crud_pro: f.crud_pro,
    crud_api: f.crud_api,
    multi_cloud: f.multi_cloud,
    scheduler_ansible: f.scheduler_ansible,
    ai_analysis: f.ai_analysis,
    webhooks: f.webhooks ?? false,
    sso: f.sso ?? false,
    users_included: f.users_included,
    extra_user_price_cents: f.extra_user_price_cents,
    api_rate_limit: f.api_rate_limit,
    data_retention_days: f.data_retention_days,
    rbac_custom_roles_limit: f.rbac_custom_roles_limit,
    cost_estimate: f.cost_estimate,
    providers: f.providers,
    auto_discovery: f.auto_discovery,
    monitoring: { enabled: f.monitoring.enabled, integrations: f.monitoring.integrations },
  };
}

/** The plans anyone may see (GET /plans), monthly and annual as separate records. */
export async function listPublicPlans(_ctx: AppContext): Promise<Plan[]> {
  return (await listPlans()).filter((p) => p.is_public);
}

export async function getPlan(planId: string): Promise<Plan | undefined> {
  return (await listPlans()).find((p) => p.id === planId);
}

export function resetPlanCache(): void {
  cache = undefined;
}
