import * as z from 'zod';
import { defineEntity } from '#db/entity';

/** A plan's features (SPEC "Plan"), in the documented order; switches added later default to off for older items. */
const planFeatures = () =>
  z.object({
    crud_basic: z.boolean(),
    crud_pro: z.boolean(),
    crud_api: z.boolean(),
    multi_cloud: z.boolean(),
    scheduler_ansible: z.boolean(),
    ai_analysis: z.boolean(),
    /** Webhook delivery of platform events (SPEC "Events": Team and above). */
    webhooks: z.boolean().default(false),
    /** Single sign-on through the project's own OpenID Connect identity provider (Business and above). */
    sso: z.boolean().default(false),
    users_included: z.int(),
    extra_user_price_cents: z.int(),
    api_rate_limit: z.int(),
    data_retention_days: z.int(),
    rbac_custom_roles_limit: z.int(),
    cost_estimate: z.enum(['none', 'basic', 'advanced']),
    providers: z.array(z.string()),
    auto_discovery: z.array(z.string()),
    monitoring: z.object({ enabled: z.boolean(), integrations: z.array(z.string()) }),
  });

/**
 * A plan of the catalogue (SPEC "Plan limits"), written only by seeding. Its fields are in the
 * documented order, the order `decode` copies them in (GET /plans answers them so).
 */
export const planEntity = defineEntity('plan', () =>
  z.object({
    id: z.uuid(),
    name: z.string(),
    interval: z.enum(['monthly', 'annual', 'none', 'custom']),
    price_cents: z.int(),
    currency: z.string(),
    perks_text: z.string(),
    max_projects: z.int().nullable(),
    max_envs_per_project: z.int().nullable(),
    max_services: z.int().nullable(),
    max_project_users: z.int().nullable(),
    max_api_keys_per_user: z.int().nullable(),
    support_level: z.enum([
      'community',
      'email_48h',
      'email_chat_24h',
      'email_chat_12h',
      'priority_4h',
      '24_7_dedicated_1h',
    ]),
    features: planFeatures(),
    is_public: z.boolean(),
  }),
);
export type Plan = z.infer<typeof planEntity.schema>;
export type PlanFeatures = Plan['features'];
export type SupportLevel = Plan['support_level'];
/** A plan's features as an item stores them: one seeded before a switch existed lacks it. */
export type StoredPlanFeatures = z.input<ReturnType<typeof planFeatures>>;
