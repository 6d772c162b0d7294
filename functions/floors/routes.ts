import type { Route } from '../../shared/http/route';

export const floorsRoutes: Route[] = [];
