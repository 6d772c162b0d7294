import { httpHandler } from '#http/pipeline';
import { environmentRoutes } from './routes.ts';

/** The environments function: its own routes only, so its bundle carries nothing of the other groups. */
export const handler = httpHandler(environmentRoutes);
