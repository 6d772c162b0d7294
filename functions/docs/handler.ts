import { httpHandler } from '#http/pipeline';
import { docsRoutes } from './routes';

/** The docs function: its own routes only, so its bundle carries nothing of the other groups. */
export const handler = httpHandler(docsRoutes);
