import * as z from 'zod';
import { EVENT_TYPES } from '#shared/events';
import type { Refusal, Route } from './route';

const jsonSchema = (s: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(s, { io, unrepresentable: 'any', target: 'draft-2020-12' });

function parameters(route: Route) {
  const out: object[] = [];
  for (const [where, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (!schema) continue;
    const js = jsonSchema(schema(), 'input') as { properties?: Record<string, object>; required?: string[] };
    for (const [name, s] of Object.entries(js.properties ?? {})) {
      out.push({ name, in: where, required: where === 'path' || (js.required ?? []).includes(name), schema: s });
    }
  }
  if (route.method === 'POST' && route.auth !== 'public') out.push(IDEMPOTENCY_PARAMETER);
  return out;
}

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
const errorBody = (schema: string) => ({ 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } });

/**
 * The refusals every operation may share, as `components.responses`: each with the `{detail}` body
 * (`Error`); 422 lists the failed fields (`ValidationError`), 423 adds `locked_until`, 429 says when
 * to try again (`Retry-After`).
 */
const RESPONSES = {
  BadRequest: {
    description: 'Refused: a well-formed request the rules do not accept (see `detail`)',
    content: errorBody('Error'),
  },
  Unauthorized: {
    description: 'Missing, invalid or revoked access token, or credentials rejected',
    headers: { 'WWW-Authenticate': { description: '`Bearer`', schema: { type: 'string' } } },
    content: errorBody('Error'),
  },
  Forbidden: {
    description:
      "Refused after tenancy passed: a permission, plan or account-level refusal; on a cookie-authenticated write also 'Origin not allowed'",
    content: errorBody('Error'),
  },
  NotFound: {
    description: 'Not found: absent, or not visible to the caller (indistinguishable)',
    content: errorBody('Error'),
  },
  Conflict: {
    description:
      "Conflict with the current state (see `detail`); on any write also a lost race after the service's own retries ('The request conflicted with a concurrent change. Please retry.', with `Retry-After`); on a POST with an `Idempotency-Key` whose first request still runs, with `Retry-After`. A 409 with `Retry-After` did nothing and may pass when sent again after that many seconds; one without it is final.",
    headers: {
      'Retry-After': {
        description: 'Present when sending the same request again may pass: seconds to wait first',
        required: false,
        schema: { type: 'integer', minimum: 0 },
      },
    },
    content: errorBody('Error'),
  },
  Gone: { description: 'Gone: the link has expired', content: errorBody('Error') },
  PayloadTooLarge: { description: 'Request body too large', content: errorBody('Error') },
  UnsupportedMediaType: {
    description: 'A cookie-authenticated write whose body is not JSON',
    content: errorBody('Error'),
  },
  ValidationFailed: {
    description: 'Request validation failed (before any lookup): every failed field',
    content: errorBody('ValidationError'),
  },
  Locked: {
    description: 'Locked: too many failed sign-ins; `locked_until` says until when',
    headers: {
      'Retry-After': {
        description: 'Seconds until the lock ends',
        required: true,
        schema: { type: 'integer', minimum: 1 },
      },
    },
    content: errorBody('Locked'),
  },
  ServiceUnavailable: {
    description:
      'A service the API depends on kept failing (throttled or unavailable) after the retries; nothing was half-written. Retry after `Retry-After` (with the same `Idempotency-Key` for a POST).',
    headers: {
      'Retry-After': {
        description: 'Seconds to wait before retrying',
        required: true,
        schema: { type: 'integer', minimum: 0 },
      },
    },
    content: errorBody('Error'),
  },
  TooManyRequests: {
    description: 'Rate limit exceeded',
    headers: {
      'Retry-After': {
        description: 'Seconds until the caller may try again',
        required: true,
        schema: { type: 'integer', minimum: 1 },
      },
    },
    content: errorBody('Error'),
  },
} as const;

const SCHEMAS = {
  Error: {
    type: 'object',
    description: 'A refusal',
    required: ['detail'],
    properties: { detail: { type: 'string', description: 'Why the request was refused' } },
  },
  ValidationIssue: {
    type: 'object',
    required: ['loc', 'msg', 'type'],
    properties: {
      loc: {
        type: 'array',
        description: 'Where: the request part (`path`, `query`, `body`), then the field path',
        items: { type: ['string', 'integer'] },
      },
      msg: { type: 'string' },
      type: { type: 'string', description: '`missing` for an absent required value, else the failed check' },
    },
  },
  ValidationError: {
    type: 'object',
    required: ['detail'],
    properties: { detail: { type: 'array', items: { $ref: '#/components/schemas/ValidationIssue' } } },
  },
  Locked: {
    type: 'object',
    required: ['detail', 'locked_until'],
    properties: { detail: { type: 'string' }, locked_until: { type: 'string', format: 'date-time' } },
  },
} as const;

const REFUSAL: Record<Refusal, keyof typeof RESPONSES> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Gone',
  423: 'Locked',
  429: 'TooManyRequests',
};

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

/**
 * How a subscriber checks a delivery: the webhooks tag's description on the reference page (the README's
 * "Verifying webhook signatures" has the same with a runnable snippet). The truth is `signatureHeaders`
 * in shared/domain/webhooks/delivery.ts; test/unit/openapi.test.ts holds the declared headers to the ones it sends.
 */
const WEBHOOKS_TAG = [
  'Webhook registrations and their deliveries.',
  '',
  'Each event is POSTed as JSON (the `event` webhook below) to every enabled webhook of the project that subscribes to its type. Verifying a delivery:',
  '',
  "- `X-Service-Signature: sha256=<hex>`: the lowercase hex HMAC-SHA-256 of the **raw request body** (the bytes received, before any JSON parsing), keyed with the webhook's **whole signing secret string** as shown when it was created or rotated, `whsec_` prefix included (its UTF-8 bytes; the secret is not base64-decoded for this header). Compare in constant time (Node: `crypto.timingSafeEqual`).",
  '- `X-Service-Signature-Previous: sha256=<hex>`: during the 24 hours after `POST /projects/{project_id}/webhooks/{webhook_id}/rotate-secret`, the same HMAC keyed with the previous secret; accept a delivery when your secret matches either header, so a receiver still holding the previous secret keeps working until it is updated.',
  '- Standard Webhooks (https://www.standardwebhooks.com): `webhook-id` (the event id; the same on every retry and redelivery: use it to drop duplicates), `webhook-timestamp` (Unix seconds of this attempt) and `webhook-signature`: space-separated `v1,<base64>` entries, the HMAC-SHA-256 of `<webhook-id>.<webhook-timestamp>.<raw body>` keyed with the base64-decoded part of the secret after `whsec_` (one entry per signing secret during a rotation). It covers the timestamp, so a receiver can refuse replays (tolerance: 5 minutes); any Standard Webhooks library verifies it with the `whsec_` secret.',
  '',
  'Answer 2xx within 15 seconds to acknowledge. Any other answer, or none, is retried on a schedule over about three days (a `Retry-After` is honoured); `410 Gone` disables the webhook at once, as do five days of failures. Redirects are not followed.',
].join('\n');

/** The one delivery every webhook receives, as an OpenAPI 3.1 `webhooks` entry (the service is the caller, the subscriber the server). */
const WEBHOOKS = {
  event: {
    post: {
      tags: ['webhooks'],
      summary: 'An event delivered to a webhook',
      operationId: 'webhookEvent',
      description:
        "The service POSTs each event to the webhook's URL, signed (see the webhooks tag). The body is the event envelope; the same event is sent with the same `webhook-id` and the same body on every retry and redelivery.",
      security: [],
      parameters: [
        {
          name: 'X-Service-Signature',
          in: 'header',
          required: true,
          description:
            '`sha256=` + lowercase hex HMAC-SHA-256 of the raw body, keyed with the whole signing secret string (`whsec_…`)',
          schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
        },
        {
          name: 'X-Service-Signature-Previous',
          in: 'header',
          required: false,
          description: 'Only during the 24 hours after a secret rotation: the same HMAC keyed with the previous secret',
          schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
        },
        {
          name: 'webhook-id',
          in: 'header',
          required: true,
          description: 'Standard Webhooks: the event id (the same on every attempt)',
          schema: { type: 'string' },
        },
        {
          name: 'webhook-timestamp',
          in: 'header',
          required: true,
          description: 'Standard Webhooks: Unix seconds of this attempt',
          schema: { type: 'string', pattern: '^[0-9]+$' },
        },
        {
          name: 'webhook-signature',
          in: 'header',
          required: true,
          description:
            'Standard Webhooks: space-separated `v1,<base64 HMAC-SHA-256 of "<webhook-id>.<webhook-timestamp>.<raw body>">`, keyed with the base64-decoded secret after `whsec_`; one entry per signing secret',
          schema: { type: 'string' },
        },
      ],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookEvent' } } },
      },
      responses: {
        '200': { description: 'Any 2xx acknowledges the delivery' },
        '410': { description: 'Gone: the webhook is disabled at once, nothing more is sent to it' },
        default: {
          description: 'Anything else (or no answer within 15 seconds) is a failed attempt, retried on the schedule',
        },
      },
    },
  },
} as const;

const WEBHOOK_SCHEMAS = {
  WebhookEvent: {
    type: 'object',
    description: 'The event envelope (SPEC "Events")',
    required: ['id', 'type', 'timestamp', 'data'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', description: 'The event id (also the `webhook-id` header)' },
      type: {
        type: 'string',
        enum: [...EVENT_TYPES, 'ping'],
        description:
          '`ping` only from `POST /projects/{project_id}/webhooks/{webhook_id}/test` (data: `webhook_id`, `project_id`)',
      },
      timestamp: { type: 'string', format: 'date-time', description: 'When the change happened (ISO 8601)' },
      data: {
        type: 'object',
        description: "The event's data; for `service.created`: `service_id`, `name`, `project_id`, `environment_id`",
        additionalProperties: true,
      },
    },
  },
} as const;

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
