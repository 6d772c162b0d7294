import { httpHandler } from '#http/pipeline';
import { structureRoutes } from './routes.ts';

/** The structure function: its own routes only, so its bundle carries nothing of the other groups. */
export const handler = httpHandler(structureRoutes);
