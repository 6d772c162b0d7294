import { httpHandler } from '#http/pipeline';
import { lifecycleRoutes } from './routes.ts';

/** The lifecycle function: its own routes only. */
export const handler = httpHandler(lifecycleRoutes);
