import { route, ok } from '#http/route';

/** The API reference: openapi.json, generated from the route table by `npm run openapi` and inlined by esbuild. */
export const docsRoutes = [
  route({
    method: 'GET', path: '/openapi.json', auth: 'public', summary: 'This API as an OpenAPI 3.1 document',
    // Loaded on first request, not at import: `npm run openapi` imports this file and must run even when openapi.json is missing or broken.
    handler: async () => ok((await import('../../openapi.json', { with: { type: 'json' } })).default, { headers: { 'cache-control': 'public, max-age=300' } }),
  }),
];
