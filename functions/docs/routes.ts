import * as z from 'zod';
import { route, ok } from '#http/route';
import { PAGE_CACHE, PAGE_CSP, PAGE_PATH, SCRIPT_CACHE, SCRIPT_PATH, redocScript, referencePage } from './reference-page';

/** The API reference: openapi.json, generated from the route table by `npm run openapi` and inlined by esbuild; the page that renders it. */
export const docsRoutes = [
  route({
    method: 'GET', path: '/openapi.json', auth: 'public', summary: 'This API as an OpenAPI 3.1 document',
    // Loaded on first request, not at import: `npm run openapi` imports this file and must run even when openapi.json is missing or broken.
    handler: async () => ok((await import('../../openapi.json', { with: { type: 'json' } })).default, { headers: { 'cache-control': 'public, max-age=300' } }),
  }),
  route({
    method: 'GET', path: PAGE_PATH, auth: 'public', summary: 'This API\'s reference as a web page (renders /openapi.json)',
    handler: async () =>
      ok(referencePage((await redocScript()).version), {
        headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': PAGE_CSP, 'cache-control': PAGE_CACHE },
      }),
  }),
  route({
    method: 'GET', path: SCRIPT_PATH, auth: 'public', summary: 'The script of the reference page (Redoc); `v` is its content version, named by the page',
    query: z.object({ v: z.string().regex(/^[\w-]{1,64}$/).optional() }),
    handler: async ({ query }) => {
      const { body, version } = await redocScript();
      // Long-lived only under the URL of this very content: a page cached from before a deploy still gets a fresh copy.
      return ok(body, { headers: { 'content-type': 'application/javascript; charset=utf-8', 'cache-control': query.v === version ? SCRIPT_CACHE : PAGE_CACHE } });
    },
  }),
];
