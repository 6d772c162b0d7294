import * as z from 'zod';
import { route, ok } from '#http/route';
import { listPublicPlans, currentSubscription, toSubscriptionOut, requestEnterprise } from '#domain/billing';
import { email, name, text } from '#http/schemas';
import { apiKeyRoutes } from './api-key-routes';

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
  route({
    method: 'POST', path: '/enterprise/request', auth: 'public', summary: 'Ask sales about the Enterprise+ plan (mailed to sales; limited per address)',
    body: z.object({ name: name(200), email, phone: text(50), message: z.string().trim().min(10).max(5000) }),
    responses: { 200: z.object({ status: z.literal('ok') }) },
    handler: async ({ body, sourceIp }, ctx) => {
      await requestEnterprise(ctx, { ...body, client: { sourceIp } });
      return ok({ status: 'ok' });
    },
  }),
  ...apiKeyRoutes,
];
