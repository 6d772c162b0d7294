import { keys } from '#db/keys';
import { putItem } from '#db/items';
import type { AppContext } from '#shared/context';
import { type Plan, type PlanFeatures, planEntity, type SupportLevel } from './plan-entity.ts';
import { FREE_PLAN_ID } from './plans.ts';
import { CLOUD_PROVIDERS, PROVIDERS } from './providers.ts';

/**
 * The plan catalogue as seeded (SPEC "Plan limits"): seed data, in its own module so that request
 * paths, which read plans from the table, do not bundle it.
 */

type Tier = Omit<Plan, 'id' | 'interval' | 'price_cents'>;

const BIG_THREE = ['aws', 'azure', 'gcp'];

const tiers: Record<string, Tier> = {
  Free: tier('Free', [1, 1, 5, 1, 1], 'community', 'One project to map a small system, community support.', {
    crud_pro: true,
    crud_api: true,
    users_included: 1,
    extra_user_price_cents: 0,
    api_rate_limit: 60,
    data_retention_days: 7,
    rbac_custom_roles_limit: 0,
    cost_estimate: 'none',
    providers: [...BIG_THREE, 'on-premise'],
    auto_discovery: [],
    monitoring: { enabled: false, integrations: [] },
  }),
  Starter: tier(
    'Starter',
    [5, 3, 25, 10, 5],
    'email_48h',
    'Five projects, three environments each, e-mail support within 48 hours.',
    {
      crud_pro: true,
      crud_api: true,
      users_included: 3,
      extra_user_price_cents: 900,
      api_rate_limit: 120,
      data_retention_days: 30,
      rbac_custom_roles_limit: 1,
      cost_estimate: 'basic',
      providers: [...BIG_THREE, 'on-premise'],
      auto_discovery: [],
      monitoring: { enabled: true, integrations: [] },
    },
  ),
  Team: tier(
    'Team',
    [15, 5, 100, 25, 15],
    'email_chat_24h',
    'Multi-cloud, webhooks, custom roles, e-mail and chat support within 24 hours.',
    {
      crud_pro: true,
      webhooks: true,
      crud_api: true,
      multi_cloud: true,
      users_included: 10,
      extra_user_price_cents: 700,
      api_rate_limit: 300,
      data_retention_days: 90,
      rbac_custom_roles_limit: 5,
      cost_estimate: 'basic',
      providers: [...PROVIDERS],
      auto_discovery: ['aws'],
      monitoring: { enabled: true, integrations: ['prometheus'] },
    },
  ),
  Business: tier(
    'Business',
    [50, 10, 500, 100, 50],
    'email_chat_12h',
    'Ansible scheduling, discovery on three clouds, support within 12 hours.',
    {
      crud_pro: true,
      webhooks: true,
      sso: true,
      crud_api: true,
      multi_cloud: true,
      scheduler_ansible: true,
      users_included: 25,
      extra_user_price_cents: 500,
      api_rate_limit: 600,
      data_retention_days: 180,
      rbac_custom_roles_limit: 20,
      cost_estimate: 'advanced',
      providers: [...PROVIDERS],
      auto_discovery: [...BIG_THREE],
      monitoring: { enabled: true, integrations: ['prometheus', 'datadog'] },
    },
  ),
  Enterprise: tier(
    'Enterprise',
    [200, 25, 2000, 500, 200],
    'priority_4h',
    'AI analysis, discovery on every cloud, priority support within 4 hours.',
    {
      crud_pro: true,
      webhooks: true,
      sso: true,
      crud_api: true,
      multi_cloud: true,
      scheduler_ansible: true,
      ai_analysis: true,
      users_included: 100,
      extra_user_price_cents: 300,
      api_rate_limit: 1200,
      data_retention_days: 365,
      rbac_custom_roles_limit: 100,
      cost_estimate: 'advanced',
      providers: [...PROVIDERS],
      auto_discovery: [...CLOUD_PROVIDERS],
      monitoring: { enabled: true, integrations: ['prometheus', 'datadog', 'grafana'] },
    },
  ),
  'Enterprise+': tier(
    'Enterprise+',
    [null, null, null, null, null],
    '24_7_dedicated_1h',
    'Unlimited everything, terms agreed with sales, dedicated 24/7 support within 1 hour.',
    {
      crud_pro: true,
      webhooks: true,
      sso: true,
      crud_api: true,
      multi_cloud: true,
      scheduler_ansible: true,
      ai_analysis: true,
      users_included: 1000,
      extra_user_price_cents: 0,
      api_rate_limit: 5000,
      data_retention_days: 730,
      rbac_custom_roles_limit: 1000,
      cost_estimate: 'advanced',
      providers: [...PROVIDERS],
      auto_discovery: [...CLOUD_PROVIDERS],
      monitoring: { enabled: true, integrations: ['prometheus', 'datadog', 'grafana'] },
    },
  ),
};

function tier(
  name: string,
  [max_projects, max_envs_per_project, max_services, max_project_users, max_api_keys_per_user]: (number | null)[],
  support_level: SupportLevel,
  perks_text: string,
  features: Partial<PlanFeatures> &
    Pick<
      PlanFeatures,
      | 'users_included'
      | 'extra_user_price_cents'
      | 'api_rate_limit'
      | 'data_retention_days'
      | 'rbac_custom_roles_limit'
      | 'cost_estimate'
      | 'providers'
      | 'auto_discovery'
      | 'monitoring'
    >,
): Tier {
  return {
    name,
    currency: 'USD',
    perks_text,
    support_level,
    is_public: true,
    max_projects,
    max_envs_per_project,
    max_services,
    max_project_users,
    max_api_keys_per_user,
    features: {
      crud_basic: true,
      crud_pro: false,
      crud_api: false,
      multi_cloud: false,
      scheduler_ansible: false,
      ai_analysis: false,
      webhooks: false,
      sso: false,
      ...features,
    },
  };
}

/** SPEC "Plan limits": ten records; monthly and annual are separate records. Fixed ids keep seeding idempotent. */
export const PLAN_CATALOGUE: Plan[] = [
  { id: FREE_PLAN_ID, interval: 'none', price_cents: 0, ...tiers.Free },
  { id: '00000000-0000-4000-8000-000000000002', interval: 'monthly', price_cents: 2900, ...tiers.Starter },
  { id: '00000000-0000-4000-8000-000000000003', interval: 'annual', price_cents: 27800, ...tiers.Starter },
  { id: '00000000-0000-4000-8000-000000000004', interval: 'monthly', price_cents: 7900, ...tiers.Team },
  { id: '00000000-0000-4000-8000-000000000005', interval: 'annual', price_cents: 75800, ...tiers.Team },
  { id: '00000000-0000-4000-8000-000000000006', interval: 'monthly', price_cents: 19900, ...tiers.Business },
  { id: '00000000-0000-4000-8000-000000000007', interval: 'annual', price_cents: 191000, ...tiers.Business },
  { id: '00000000-0000-4000-8000-000000000008', interval: 'monthly', price_cents: 49900, ...tiers.Enterprise },
  { id: '00000000-0000-4000-8000-000000000009', interval: 'annual', price_cents: 479000, ...tiers.Enterprise },
  { id: '00000000-0000-4000-8000-00000000000a', interval: 'custom', price_cents: 0, ...tiers['Enterprise+'] },
];

/**
 * Writes the catalogue; plan ids and ranks are fixed, so running it again overwrites the same ten items.
 * One PutItem per plan: BatchWriteItem may hand back UnprocessedItems (throttling on a fresh table),
 * while single puts get the SDK's retries with backoff.
 */
export async function seedPlans(_ctx: AppContext): Promise<void> {
  await Promise.all(PLAN_CATALOGUE.map((plan, rank) => putItem(planEntity.encode(keys.plan(rank, plan.id), plan))));
}
