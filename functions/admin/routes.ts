import { route, ok } from '../../shared/http/route';
import { activePlan } from '../../shared/domain/subscriptions';

export const adminRoutes = [
  route({
    method: 'GET', path: '/admin/features/my', auth: 'user', summary: "Feature flags of the caller's active plan",
    handler: async ({ principal }) => ok({ features: (await activePlan(principal.account.id))?.plan.features ?? {} }),
  }),
];
