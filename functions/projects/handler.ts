import { httpHandler } from '#http/pipeline';
import { projectRoutes } from './routes.ts';

/** The projects function: its own routes only, so its bundle carries nothing of the other groups. */
export const handler = httpHandler(projectRoutes);
