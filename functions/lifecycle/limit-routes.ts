import * as z from 'zod';
import { route, ok } from '#http/route';
import { confirmDowngrade, downgradePreflight, limitsStatus, overageCandidates } from '#domain/lifecycle';
import { lazySchema } from '#shared/lazy-schema';

const limited = lazySchema(() => z.int().nullable());
const trio = <T extends z.ZodType>(t: T) => z.object({ services: t, project_users: t, api_keys: t });
const measure = lazySchema(() => z.object({ count: z.int(), limit: limited(), over: z.int() }));
const archiveWindow = lazySchema(() => z.object({ until: z.string().nullable(), remaining_seconds: z.int() }));
const candidate = lazySchema(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    project_id: z.string().nullable(),
    environment_id: z.string().nullable(),
    created_at: z.string(),
    suggested: z.boolean(),
  }),
);
const selection = lazySchema(() =>
  z.object({
    environments: z.array(z.string()),
    services: z.array(z.string()),
    project_users: z.array(z.string()),
    api_keys: z.array(z.string()),
  }),
);
/** `plan_id` any short string: an unknown one is SPEC's 404 'Plan not found', not a 422. */
const toPlan = lazySchema(() => z.object({ to_plan_id: z.string().min(1).max(100) }));

export const limitRoutes = [
  route({
    method: 'GET',
    path: '/me/limits/status',
    auth: 'user',
    summary: "What the caller's projects use of the plan, what is over, and the downgrade window",
    responses: () => ({
      200: z.object({
        limits: trio(limited()),
        usage: trio(z.int()),
        over: trio(z.int()),
        over_total: z.int(),
        any_over: z.boolean(),
        archive_window: archiveWindow(),
        services_per_env: z.array(
          z.object({
            project_id: z.string(),
            environment_id: z.string(),
            environment_name: z.string(),
            services: z.int(),
            limit: limited(),
            over: z.int(),
          }),
        ),
      }),
    }),
    handler: async (_req, ctx) => ok(await limitsStatus(ctx)),
  }),
  route({
    method: 'GET',
    path: '/me/limits/overage-candidates',
    auth: 'user',
    summary: 'What could be archived to get under the limits, newest first, with a suggested selection',
    responses: () => ({
      200: z.object({
        environments: z.array(candidate()),
        services: z.array(candidate()),
        project_users: z.array(candidate()),
        api_keys: z.array(candidate()),
        suggested: selection(),
      }),
    }),
    handler: async (_req, ctx) => ok(await overageCandidates(ctx)),
  }),
  route({
    method: 'POST',
    path: '/me/downgrade/preflight',
    auth: 'user',
    summary: "What would be over a smaller plan's limits, per kind, project and environment",
    body: toPlan,
    responses: () => ({
      200: z.object({
        from_plan: z.object({ id: z.string(), name: z.string() }),
        to_plan: z.object({ id: z.string(), name: z.string() }),
        limits: trio(limited()),
        usage: trio(z.int()),
        over: z.object({
          services: z.int(),
          project_users: z.int(),
          api_keys: z.int(),
          environments: z.int(),
          projects: z.int(),
        }),
        any_over: z.boolean(),
        archive_window_days: z.int(),
        projects: z.array(
          z.object({
            project_id: z.string(),
            name: z.string(),
            services: measure(),
            environments: measure(),
            project_users: measure(),
            environments_over: z.array(z.object({ environment_id: z.string(), name: z.string(), services: measure() })),
          }),
        ),
      }),
    }),
    refusals: [400, 404, 409],
    handler: async ({ body }, ctx) => ok(await downgradePreflight(ctx, body)),
  }),
  route({
    method: 'POST',
    path: '/me/downgrade/confirm',
    auth: 'user',
    summary: 'Move to a smaller plan now; what is still over is archived 14 days later',
    body: toPlan,
    responses: () => ({
      200: z.object({
        status: z.literal('ok'),
        plan: z.object({ id: z.string(), name: z.string() }),
        archive_window: archiveWindow(),
        over: trio(z.int()),
        any_over: z.boolean(),
      }),
    }),
    refusals: [400, 404, 409],
    handler: async ({ body }, ctx) => ok(await confirmDowngrade(ctx, body)),
  }),
];
