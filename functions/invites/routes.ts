import type { Route } from '../../shared/http/route';

export const invitesRoutes: Route[] = [];
