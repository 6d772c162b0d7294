import { httpHandler } from '#http/pipeline';
import { invitesRoutes } from './routes.ts';

/** The invites function: its own routes only, so its bundle carries nothing of the other groups. */
export const handler = httpHandler(invitesRoutes);
