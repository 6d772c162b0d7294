import type { Route } from '#http/route';

export const archiveRoutes: Route[] = [];
