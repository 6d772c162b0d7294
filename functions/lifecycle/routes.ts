import { limitRoutes } from './limit-routes';
import { archiveRoutes } from './archive-routes';

/** The lifecycle group (one Lambda): plan limits across the account, downgrade, archive and restore. */
export const lifecycleRoutes = [...limitRoutes, ...archiveRoutes];
