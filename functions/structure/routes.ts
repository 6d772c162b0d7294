import type { Route } from '#http/route';
import { groupRoutes } from './group-routes';
import { customRoleRoutes } from './custom-role-routes';
import { customFieldRoutes } from './custom-field-routes';

/** Groups and subgroups of environments, and a project's custom roles (DESIGN: the structure function). */
export const structureRoutes: Route[] = [...groupRoutes, ...customRoleRoutes, ...customFieldRoutes];
