import { httpHandler } from '#http/pipeline';
import { billingRoutes } from './routes.ts';

/** The billing function: its own routes only, so its bundle carries nothing of the other groups. */
export const handler = httpHandler(billingRoutes);
