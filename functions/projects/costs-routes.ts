import * as z from 'zod';
import { route, ok } from '#http/route';
import { uuid } from '#http/schemas';
import { costEstimate } from '#domain/tenancy';

export const costRoutes = [
  route({
    method: 'GET',
    path: '/projects/{project_id}/costs/estimate',
    auth: 'user',
    summary: "Monthly cost estimate of a project's servers (or one environment's), from the documented rate card",
    params: () => z.object({ project_id: uuid() }),
    query: () => z.object({ environment_id: uuid().optional() }),
    refusals: [400, 403, 404],
    handler: async ({ params, query }, ctx) => ok(await costEstimate(ctx, { ...params, ...query })),
  }),
];
