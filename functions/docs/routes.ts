import { route, ok } from '#http/route';
import { openApiDocument } from '#http/openapi';

/** The API reference, generated from the route table on first request. */
export const docsRoutes = [
  route({
    method: 'GET', path: '/openapi.json', auth: 'public', summary: 'This API as an OpenAPI 3.1 document',
    handler: async () => ok(await openApiDocument(), { headers: { 'cache-control': 'public, max-age=300' } }),
  }),
];
