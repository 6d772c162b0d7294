import * as z from 'zod';
import { route, ok, type Method } from '#http/route';
import { createRouter, type Routable, type Router } from '#http/router';
import {
  PAGE_CACHE,
  PAGE_CSP,
  PAGE_PATH,
  SCRIPT_CACHE,
  SCRIPT_PATH,
  redocScript,
  referencePage,
} from './reference-page.ts';

const openApiDocument = async () => (await import('../../openapi.json', { with: { type: 'json' } })).default;

let whole: Promise<Router<Routable>> | undefined;
/**
 * Every operation of the API, read off the served document on first use: this function answers what
 * no route takes (API Gateway's `$default`), and a known path asked with another method is a 405 whose
 * Allow it lists.
 */
export const wholeApi = (): Promise<Router<Routable>> =>
  (whole ??= openApiDocument().then((doc) =>
    createRouter(
      Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => ({ method: m.toUpperCase() as Method, path })),
      ),
    ),
  ));

/** The API reference: openapi.json, generated from the route table by `npm run openapi` and inlined by esbuild; the page that renders it. */
export const docsRoutes = [
  route({
    method: 'GET',
    path: '/openapi.json',
    auth: 'public',
    summary: 'This API as an OpenAPI 3.1 document',
    // Loaded on first request, not at import: `npm run openapi` imports this file and must run even when openapi.json is missing or broken.
    handler: async () => ok(await openApiDocument(), { headers: { 'cache-control': 'public, max-age=300' } }),
  }),
  route({
    method: 'GET',
    path: PAGE_PATH,
    auth: 'public',
    summary: "This API's reference as a web page (renders /openapi.json)",
    handler: async () =>
      ok(referencePage((await redocScript()).version), {
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': PAGE_CSP,
          'cache-control': PAGE_CACHE,
        },
      }),
  }),
  route({
    method: 'GET',
    path: SCRIPT_PATH,
    auth: 'public',
    summary: 'The script of the reference page (Redoc); `v` is its content version, named by the page',
    query: () =>
      z.object({
        v: z
          .string()
          .regex(/^[\w-]{1,64}$/)
          .optional(),
      }),
    handler: async ({ query }) => {
      const { body, version } = await redocScript();
      // Long-lived only under the URL of this very content: a page cached from before a deploy still gets a fresh copy.
      return ok(body, {
        headers: {
          'content-type': 'application/javascript; charset=utf-8',
          'cache-control': query.v === version ? SCRIPT_CACHE : PAGE_CACHE,
        },
      });
    },
  }),
];
