import { httpHandler } from '#http/pipeline';
import { networksRoutes } from './routes.ts';

/** The networks function: its own routes only, so its bundle carries nothing of the other groups. */
export const handler = httpHandler(networksRoutes);
