import type { Route } from '#http/route';

export const limitRoutes: Route[] = [];
