import { httpHandler } from '#http/pipeline';
import { topologyRoutes } from './routes.ts';

/** The topology function: its own routes only, so its bundle carries nothing of the other groups. */
export const handler = httpHandler(topologyRoutes);
