import { httpHandler } from '#http/pipeline';
import { impexRoutes } from './routes';

/** The impex function: its own routes only. */
export const handler = httpHandler(impexRoutes);
