import { httpHandler } from '#http/pipeline';
import { docsRoutes, wholeApi } from './routes.ts';

/**
 * The docs function: its own routes only, so its bundle carries nothing of the other groups; it also
 * answers what no route takes (API Gateway's `$default`): 404, or 405 for a known path (`wholeApi`).
 */
export const handler = httpHandler(docsRoutes, { wholeApi });
