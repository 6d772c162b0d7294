import { limitRoutes } from './limit-routes.ts';
import { archiveRoutes } from './archive-routes.ts';

/** The lifecycle group (one Lambda): plan limits across the account, downgrade, archive and restore. */
export const lifecycleRoutes = [...limitRoutes, ...archiveRoutes];
