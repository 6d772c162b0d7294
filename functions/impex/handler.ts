import { httpHandler } from '#http/pipeline';
import { impexRoutes } from './routes.ts';

/** The impex function: its own routes only. */
export const handler = httpHandler(impexRoutes);
