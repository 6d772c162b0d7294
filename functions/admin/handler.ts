import { httpHandler } from '#http/pipeline';
import { adminRoutes } from './routes.ts';

/** The admin function: its own routes only, so its bundle carries nothing of the other groups. */
export const handler = httpHandler(adminRoutes);
