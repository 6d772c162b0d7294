import { z } from 'zod';
import { route, ok } from '#http/route';
import { uuid } from '#http/schemas';
import { projectCostEstimate } from '#domain/tenancy';

export const costRoutes = [
  route({
    method: 'GET', path: '/projects/{project_id}/costs/estimate', auth: 'user',
    summary: "Monthly cost estimate of a project's servers (or one environment's), from the documented rate card",
    params: z.object({ project_id: uuid }),
    query: z.object({ environment_id: uuid.optional() }),
    handler: async ({ principal, params, query }) => ok(await projectCostEstimate(params.project_id, principal.account.id, query.environment_id)),
  }),
];
