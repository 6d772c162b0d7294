import { httpHandler } from '#http/pipeline';
import { integrationsRoutes } from './routes.ts';

/** The integrations function (cloud accounts and discovery): its own routes only. */
export const handler = httpHandler(integrationsRoutes);
