import type { Route } from '../../shared/http/route';

export const structureRoutes: Route[] = [];
