import { keys } from '#db/keys';
import { stripKeys } from '#db/strip-keys';
import { queryPartition } from '#db/query';
import type { AppContext } from '#shared/context';

export type Interval = 'monthly' | 'annual' | 'none' | 'custom';
export type SupportLevel =
  | 'community'
  | 'email_48h'
  | 'email_chat_24h'
  | 'email_chat_12h'
  | 'priority_4h'
  | '24_7_dedicated_1h';

export interface PlanFeatures {
  crud_basic: boolean;
  crud_pro: boolean;
  crud_api: boolean;
  multi_cloud: boolean;
  scheduler_ansible: boolean;
  ai_analysis: boolean;
  /** Webhook delivery of platform events (SPEC "Events": Team and above). */
  webhooks: boolean;
  /** Single sign-on through the project's own OpenID Connect identity provider (Business and above). */
  sso: boolean;
  users_included: number;
  extra_user_price_cents: number;
  api_rate_limit: number;
  data_retention_days: number;
  rbac_custom_roles_limit: number;
  cost_estimate: 'none' | 'basic' | 'advanced';
  providers: string[];
  auto_discovery: string[];
  monitoring: { enabled: boolean; integrations: string[] };
}

export interface Plan {
  id: string;
  name: string;
  interval: Interval;
  price_cents: number;
  currency: string;
  perks_text: string;
  max_projects: number | null;
  max_envs_per_project: number | null;
  max_services: number | null;
  max_project_users: number | null;
  max_api_keys_per_user: number | null;
  support_level: SupportLevel;
  features: PlanFeatures;
  is_public: boolean;
}

/** The Free plan: a customer's plan when nothing else applies (fixed, like every catalogue id). */
export const FREE_PLAN_ID = '00000000-0000-4000-8000-000000000001';

/** Plans change only by seeding, so each process keeps them for a minute instead of reading per request. */
const CACHE_MS = 60_000;
let cache: { at: number; plans: Promise<Plan[]> } | undefined;

function listPlans(): Promise<Plan[]> {
  if (!cache || Date.now() - cache.at > CACHE_MS) {
    const plans = queryPartition(keys.plans, '').then((items) =>
      items.map((i) => inDocumentedOrder(stripKeys(i) as unknown as Plan)),
    );
    cache = { at: Date.now(), plans };
    plans.catch(() => (cache = undefined));
  }
  return cache.plans;
}

/** DynamoDB returns map attributes in no particular order; clients read plans in the documented one. */
function inDocumentedOrder(p: Plan): Plan {
  const {
    id,
    name,
    interval,
    price_cents,
    currency,
    perks_text,
    max_projects,
    max_envs_per_project,
    max_services,
    max_project_users,
    max_api_keys_per_user,
    support_level,
    features,
    is_public,
  } = p;
  const f = features;
  return {
    id,
    name,
    interval,
    price_cents,
    currency,
    perks_text,
    max_projects,
    max_envs_per_project,
    max_services,
    max_project_users,
    max_api_keys_per_user,
    support_level,
    features: {
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
    },
    is_public,
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
