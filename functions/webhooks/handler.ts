import { httpHandler } from '#http/pipeline';
import { webhooksRoutes } from './routes.ts';

/** The webhooks function: its own routes only, so its bundle carries nothing of the other groups. */
export const handler = httpHandler(webhooksRoutes);
