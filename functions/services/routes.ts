import type { Route } from '../../shared/http/route';

export const servicesRoutes: Route[] = [];
