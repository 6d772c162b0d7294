import type { Route } from '#http/route';
import { authRoutes } from './auth/routes.ts';
import { billingRoutes } from './billing/routes.ts';
import { adminRoutes } from './admin/routes.ts';
import { docsRoutes } from './docs/routes.ts';
import { projectRoutes } from './projects/routes.ts';
import { environmentRoutes } from './environments/routes.ts';
import { structureRoutes } from './structure/routes.ts';
import { servicesRoutes } from './services/routes.ts';
import { floorsRoutes } from './floors/routes.ts';
import { topologyRoutes } from './topology/routes.ts';
import { networksRoutes } from './networks/routes.ts';
import { invitesRoutes } from './invites/routes.ts';
import { lifecycleRoutes } from './lifecycle/routes.ts';
import { impexRoutes } from './impex/routes.ts';
import { integrationsRoutes } from './integrations/routes.ts';
import { webhooksRoutes } from './webhooks/routes.ts';
import { auditRoutes } from './audit/routes.ts';

/**
 * The one route table: group name (= Lambda function) → its routes. The Lambda routers, the local
 * server, the API Gateway routes and the OpenAPI document are all derived from it.
 */
export const routeTable = {
  auth: authRoutes,
  admin: adminRoutes,
  billing: billingRoutes,
  projects: projectRoutes,
  environments: environmentRoutes,
  structure: structureRoutes,
  services: servicesRoutes,
  floors: floorsRoutes,
  topology: topologyRoutes,
  networks: networksRoutes,
  invites: invitesRoutes,
  lifecycle: lifecycleRoutes,
  impex: impexRoutes,
  integrations: integrationsRoutes,
  webhooks: webhooksRoutes,
  audit: auditRoutes,
  docs: docsRoutes,
} satisfies Record<string, Route[]>;

export type RouteGroup = keyof typeof routeTable;

/** The group whose function answers routes API Gateway has no route for (its router says 404 Not Found). */
export const FALLBACK_GROUP: RouteGroup = 'docs';

export const allRoutes = (): { group: RouteGroup; route: Route }[] =>
  Object.entries(routeTable).flatMap(([group, routes]) =>
    (routes as Route[]).map((route) => ({ group: group as RouteGroup, route })),
  );
