import type { Route } from '#http/route';
import { groupRoutes } from './group-routes.ts';
import { customRoleRoutes } from './custom-role-routes.ts';
import { customFieldRoutes } from './custom-field-routes.ts';

/** Groups and subgroups of environments, and a project's custom roles (DESIGN: the structure function). */
export const structureRoutes: Route[] = [...groupRoutes, ...customRoleRoutes, ...customFieldRoutes];
