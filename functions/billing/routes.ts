import * as z from 'zod';
import { route, ok } from '#http/route';
import { listPublicPlans, currentSubscription, toSubscriptionOut } from '#domain/billing';

const planOut = z.object({
  id: z.uuid(), name: z.string(), interval: z.enum(['monthly', 'annual', 'none', 'custom']), price_cents: z.int(), currency: z.string(),
  perks_text: z.string(), max_projects: z.int().nullable(), max_envs_per_project: z.int().nullable(), max_services: z.int().nullable(),
  max_project_users: z.int().nullable(), max_api_keys_per_user: z.int().nullable(), support_level: z.string(),
  features: z.record(z.string(), z.unknown()), is_public: z.boolean(),
});

export const billingRoutes = [
  route({
    method: 'GET', path: '/plans', auth: 'public', summary: 'Public plans, monthly and annual as separate records',
    responses: { 200: z.array(planOut) },
    handler: async (_req, ctx) => ok(await listPublicPlans(ctx)),
  }),
  route({
    method: 'GET', path: '/me/subscription', auth: 'user', summary: "The caller's active subscription and its plan",
    handler: async (_req, ctx) => ok(toSubscriptionOut(await currentSubscription(ctx))),
  }),
];
