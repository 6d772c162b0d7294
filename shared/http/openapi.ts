import * as z from 'zod';
import type { Refusal, Route } from './route.ts';
import { REFUSAL, RESPONSES, SCHEMAS } from './openapi-components.ts';
import { WEBHOOK_SCHEMAS, WEBHOOKS, WEBHOOKS_TAG } from './openapi-webhooks.ts';
import { PARAMETER_FAMILY, type ParameterFamily } from '#shared/parameter-family';

const jsonSchema = (s: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(s, { io, unrepresentable: 'any', target: 'draft-2020-12' });

function parameters(route: Route) {
  const out: object[] = [];
  for (const [where, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (!schema) continue;
    const js = jsonSchema(schema(), 'input') as {
      properties?: Record<string, object>;
      required?: string[];
      additionalProperties?: object | boolean;
      [PARAMETER_FAMILY]?: ParameterFamily;
    };
    for (const [name, s] of Object.entries(js.properties ?? {})) {
      out.push({ name, in: where, required: where === 'path' || (js.required ?? []).includes(name), schema: s });
    }
    const family = js[PARAMETER_FAMILY];
    if (where === 'query' && family && js.additionalProperties)
      out.push(familyParameter(family, js.additionalProperties));
  }
  if (route.method === 'POST' && route.auth !== 'public') out.push(IDEMPOTENCY_PARAMETER);
  return out;
}

/**
 * A documented family of parameters a query schema takes beyond its named ones (#shared/parameter-family):
 * an object parameter, form-exploded, whose property names are the parameters' names, its values what
 * the schema's catchall takes. (A schema that passes unnamed parameters on without a family, as the
 * sign-in callback does with what the identity provider sends, documents none.)
 */
const familyParameter = (family: ParameterFamily, values: object | boolean) => ({
  name: family.name,
  in: 'query',
  required: false,
  style: 'form',
  explode: true,
  description: family.description,
  schema: { type: 'object', propertyNames: { pattern: family.pattern }, additionalProperties: values },
});

/** Every signed-in POST takes an `Idempotency-Key` (shared/http/idempotency.ts). */
const IDEMPOTENCY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the request safe to retry: a retry with the same key and request within 24 hours gets the first answer again (with `Idempotent-Replayed: true`) instead of running twice; the same key with a different request is 422; a retry while the first is still running is 409 with `Retry-After`. Refusals are not kept. Keys are per account.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
};

const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });

/** Every status an operation can answer: its successes, its declared refusals, and those the pipeline derives from its properties. */
/** A list that takes a `cursor` (shared/http/paging.ts) answers the next page's in this header; none on the last page. */
const NEXT_CURSOR = {
  'X-Next-Cursor': {
    description: 'The `cursor` of the next page; absent on the last page',
    schema: { type: 'string' },
  },
};
const isPaged = (r: Route) =>
  !!r.query && 'cursor' in ((jsonSchema(r.query(), 'input') as { properties?: object }).properties ?? {});

function responsesOf(r: Route): Record<string, object> {
  const responses: Record<string, object> = {};
  const paged = isPaged(r);
  for (const [status, schema] of Object.entries(r.responses?.() ?? { 200: null })) {
    if (Number(status) >= 400)
      throw new Error(`${r.method} ${r.path}: declare refusal ${status} in \`refusals\`, not \`responses\``);
    const accepted = status === '202';
    responses[status] = {
      description: accepted
        ? 'Accepted: the work goes on asynchronously'
        : status === '302'
          ? 'Found: the resource is at the Location'
          : 'Success',
      ...(status === '302'
        ? {
            headers: {
              Location: {
                description: 'Where to fetch it (no other credential needed)',
                required: true,
                schema: { type: 'string', format: 'uri' },
              },
            },
          }
        : {}),
      // A poll that answers "not yet" says when to ask again (GET /subscriptions/checkout-url/{job_id}).
      ...(accepted && r.method === 'GET'
        ? {
            headers: {
              'Retry-After': {
                description: 'Seconds until the caller should poll again',
                required: true,
                schema: { type: 'integer', minimum: 0 },
              },
            },
          }
        : {}),
      ...(paged && status === '200' ? { headers: NEXT_CURSOR } : {}),
      ...(schema ? { content: { 'application/json': { schema: jsonSchema(schema, 'output') } } } : {}),
    };
  }
  const statuses = new Set<number>(r.refusals ?? []);
  if (r.auth !== 'public') statuses.add(401);
  // The cross-site guard (shared/http/security.ts) answers 403/415 for cookie-authenticated writes; staff routes refuse others;
  // an API key's token is refused account-only routes (#auth/key-grant), so any authenticated route may answer 403.
  if (r.method !== 'GET' || r.auth !== 'public') statuses.add(403);
  // A path parameter holding a malformed percent-escape names no resource: the router's 404.
  if (r.path.includes('{')) statuses.add(404);
  // A write whose transaction keeps losing a race answers 409 once its retries are spent (#db/transact's concurrentChange).
  if (r.method !== 'GET') statuses.add(409);
  if (r.body || r.multipart) statuses.add(413);
  if (r.method !== 'GET') statuses.add(415);
  if (r.params || r.query || r.body) statuses.add(422);
  // A dependency that keeps failing after the SDK's retries (shared/outage.ts, answered by the pipeline).
  statuses.add(503);
  for (const status of [...statuses].sort((a, b) => a - b)) {
    const name =
      status === 413
        ? 'PayloadTooLarge'
        : status === 415
          ? 'UnsupportedMediaType'
          : status === 422
            ? 'ValidationFailed'
            : status === 503
              ? 'ServiceUnavailable'
              : REFUSAL[status as Refusal];
    if (!name) throw new Error(`${r.method} ${r.path}: no response for status ${status}`);
    responses[String(status)] = ref(name);
  }
  return responses;
}

const operationId = (r: Route) =>
  `${r.method.toLowerCase()}${r.path.replace(/[{}]/g, '').replace(/[^a-zA-Z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`;

/** One line per route group (= tag), for the reference page. */
const TAGS: Record<string, string> = {
  auth: 'Sign-in, sessions, second factor, password reset and the own account',
  admin: 'Platform staff administration',
  billing: 'Plans, subscriptions, invoices, API keys and the payment-provider webhook',
  projects: 'Projects, their members, project users and cost estimates',
  environments: 'Environments and environment roles',
  structure: 'Groups, subgroups and custom roles',
  services: 'Services',
  floors: 'Service floors (servers)',
  topology: 'Service connections, chains, links and blast radius',
  networks: 'Networks and their attachments to services and floors',
  invites: 'Invitations to projects',
  lifecycle: 'Plan limits, downgrades, archive and restore',
  impex: 'Import, export and their progress',
  integrations: 'Cloud accounts and discovery',
  webhooks: WEBHOOKS_TAG,
  audit: 'Who changed what, when and from where: the audit logs',
  docs: 'This API reference',
};

/** OpenAPI 3.1 from the route table's zod schemas: one operation per route, tagged with its group. */
export function buildOpenApi(entries: { group: string; route: Route }[]) {
  const paths: Record<string, Record<string, object>> = {};
  const ids = new Set<string>();
  const groups: string[] = [];
  const used = new Set<string>();
  for (const { group, route: r } of entries) {
    const id = operationId(r);
    if (ids.has(id)) throw new Error(`operationId ${id} is not unique (${r.method} ${r.path})`);
    ids.add(id);
    if (!groups.includes(group)) groups.push(group);
    const responses = responsesOf(r);
    for (const res of Object.values(responses)) if ('$ref' in res) used.add(String(res.$ref).split('/').pop()!);
    (paths[r.path] ??= {})[r.method.toLowerCase()] = {
      tags: [group],
      summary: r.summary,
      operationId: id,
      parameters: parameters(r),
      ...(r.body
        ? {
            requestBody: {
              required: !r.body().safeParse(undefined).success,
              content: {
                [r.multipart ? 'multipart/form-data' : 'application/json']: { schema: jsonSchema(r.body(), 'input') },
              },
            },
          }
        : {}),
      responses,
      security:
        r.auth === 'public' ? [] : [{ bearer: [] }, { cookie: [] }, ...(r.tokenInQuery ? [{ queryToken: [] }] : [])],
      ...(r.auth === 'staff' ? { 'x-requires': 'staff' } : {}),
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Infrastructure Catalog', version: '1.0.0', description: 'Multi-tenant catalog of infrastructure.' },
    servers: [{ url: '/', description: 'This service: the API is served at the root of its origin' }],
    tags: groups.map((name) => ({ name, description: TAGS[name] ?? `The ${name} routes` })),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        cookie: { type: 'apiKey', in: 'cookie', name: 'access_token' },
        queryToken: {
          type: 'apiKey',
          in: 'query',
          name: 'token',
          description:
            'The access token as query parameter, where an operation takes it (clients that cannot send headers); it wins over the header',
        },
      },
      schemas: { ...SCHEMAS, ...WEBHOOK_SCHEMAS },
      // Only the shared responses some operation uses (the linter flags unused components).
      responses: Object.fromEntries(Object.entries(RESPONSES).filter(([name]) => used.has(name))),
    },
    paths,
    webhooks: WEBHOOKS,
  };
}
