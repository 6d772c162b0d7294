import { httpHandler } from '#http/pipeline';
import { servicesRoutes } from './routes.ts';

/** The services function: its own routes only, so its bundle carries nothing of the other groups. */
export const handler = httpHandler(servicesRoutes);
