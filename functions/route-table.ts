import type { Route } from '#http/route';
import { authRoutes } from './auth/routes';
import { billingRoutes } from './billing/routes';
import { adminRoutes } from './admin/routes';
import { docsRoutes } from './docs/routes';
import { projectRoutes } from './projects/routes';
import { environmentRoutes } from './environments/routes';
import { structureRoutes } from './structure/routes';
import { servicesRoutes } from './services/routes';
import { floorsRoutes } from './floors/routes';
import { topologyRoutes } from './topology/routes';
import { networksRoutes } from './networks/routes';
import { invitesRoutes } from './invites/routes';
import { lifecycleRoutes } from './lifecycle/routes';
import { impexRoutes } from './impex/routes';
import { integrationsRoutes } from './integrations/routes';
import { webhooksRoutes } from './webhooks/routes';
import { auditRoutes } from './audit/routes';

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
