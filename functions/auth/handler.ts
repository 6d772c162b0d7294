import { httpHandler } from '#http/pipeline';
import { authRoutes } from './routes.ts';

/** The auth function: its own routes only, so its bundle carries nothing of the other groups. */
export const handler = httpHandler(authRoutes);
