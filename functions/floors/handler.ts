import { httpHandler } from '#http/pipeline';
import { floorsRoutes } from './routes.ts';

/** The floors function: its own routes only, so its bundle carries nothing of the other groups. */
export const handler = httpHandler(floorsRoutes);
