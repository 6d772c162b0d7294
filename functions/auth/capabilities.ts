import * as z from 'zod';
import { route, ok } from '#http/route';
import { uuid } from '#http/schemas';
import { callerCapabilities } from '#domain/tenancy';

/** GET /auth/me/capabilities: the caller's effective permission keys, from the one permission function. */
export const capabilityRoutes = [
  route({
    method: 'GET',
    path: '/auth/me/capabilities',
    auth: 'user',
    summary: "The caller's effective permissions in a project (optionally one environment)",
    query: () => z.object({ project_id: uuid(), environment_id: uuid().optional() }),
    responses: () => ({
      200: z.object({
        project_id: z.uuid(),
        is_owner: z.boolean(),
        is_member: z.boolean(),
        capabilities: z.array(z.string()),
      }),
    }),
    handler: async ({ query }, ctx) => ok(await callerCapabilities(ctx, query)),
  }),
];
