import { httpHandler } from '#http/pipeline';
import { auditRoutes } from './routes.ts';

/** The audit function: its own routes only, so its bundle carries nothing of the other groups. */
export const handler = httpHandler(auditRoutes);
