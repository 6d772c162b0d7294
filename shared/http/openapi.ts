import * as z from 'zod';
import type { Route } from './route';

const jsonSchema = (s: z.ZodType, io: 'input' | 'output') => z.toJSONSchema(s, { io, unrepresentable: 'any', target: 'draft-2020-12' });

function parameters(route: Route) {
  const out: object[] = [];
  for (const [where, schema] of [['path', route.params], ['query', route.query]] as const) {
    if (!schema) continue;
    const js = jsonSchema(schema, 'input') as { properties?: Record<string, object>; required?: string[] };
    for (const [name, s] of Object.entries(js.properties ?? {})) {
      out.push({ name, in: where, required: where === 'path' || (js.required ?? []).includes(name), schema: s });
    }
  }
  return out;
}

/** OpenAPI 3.1 from the route table's zod schemas. */
export function buildOpenApi(routes: Route[]) {
  const paths: Record<string, Record<string, object>> = {};
  for (const r of routes) {
    const responses: Record<string, object> = {};
    for (const [status, schema] of Object.entries(r.responses ?? { 200: null })) {
      const headers = r.responseHeaders && status.startsWith('2')
        ? { headers: Object.fromEntries(Object.entries(r.responseHeaders).map(([name, description]) => [name, { description, schema: { type: 'string' } }])) }
        : {};
      responses[status] = schema
        ? { description: 'Success', ...headers, content: { 'application/json': { schema: jsonSchema(schema, 'output') } } }
        : { description: 'Success', ...headers };
    }
    if (r.params || r.query || r.body) responses['422'] = { description: 'Request validation failed' };
    if (r.auth !== 'public') responses['401'] = { description: 'Missing, invalid or revoked access token' };
    if (r.method !== 'GET') {
      // The cross-site guard (shared/http/security.ts) answers these for cookie-authenticated writes.
      responses['403'] ??= { description: 'Refused; for a cookie-authenticated write also: Origin not allowed' };
      responses['415'] = { description: 'A cookie-authenticated write whose body is not JSON' };
    }
    (paths[r.path] ??= {})[r.method.toLowerCase()] = {
      summary: r.summary,
      operationId: `${r.method.toLowerCase()}${r.path.replace(/[{}]/g, '').replace(/[^a-zA-Z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
      parameters: parameters(r),
      ...(r.body ? { requestBody: { required: !r.body.safeParse(undefined).success, content: { [r.multipart ? 'multipart/form-data' : 'application/json']: { schema: jsonSchema(r.body, 'input') } } } } : {}),
      responses,
      security: r.auth === 'public' ? [] : [{ bearer: [] }, { cookie: [] }],
      ...(r.auth === 'staff' ? { 'x-requires': 'staff' } : {}),
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Infrastructure Catalog', version: '1.0.0', description: 'Multi-tenant catalog of infrastructure.' },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        cookie: { type: 'apiKey', in: 'cookie', name: 'access_token' },
      },
    },
    paths,
  };
}
