import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allRoutes } from '../../functions/route-table.ts';
import { buildOpenApi } from '#http/openapi';
import { signatureHeaders } from '../../shared/domain/webhooks/signed-post.ts';
import { EVENT_TYPES } from '#shared/events';

type Response = {
  $ref?: string;
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema: { $ref?: string } }>;
};
type Operation = { operationId: string; tags: string[]; security: object[]; responses: Record<string, Response> };

const committed = JSON.parse(readFileSync(join(import.meta.dirname, '../../openapi.json'), 'utf8'));
const operations = (): [string, Operation][] =>
  Object.entries(committed.paths as Record<string, Record<string, Operation>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([m, op]) => [`${m.toUpperCase()} ${path}`, op] as [string, Operation]),
  );
const statuses = (key: string) => Object.keys(operations().find(([k]) => k === key)![1].responses);
const resolve = (res: Response): Response =>
  res.$ref ? committed.components.responses[res.$ref.split('/').pop()!] : res;

describe('the committed openapi.json', () => {
  it('matches the document built from the route table', () => {
    // Through JSON, as the file is written: compares what a client would be served.
    const built = JSON.parse(JSON.stringify(buildOpenApi(allRoutes())));
    expect(committed, 'openapi.json is stale: run `npm run openapi` and commit the result').toStrictEqual(built);
  });

  it('gives every refusal the shared {detail} body; 422 lists the fields, 423 adds locked_until, 429 says Retry-After', () => {
    for (const [key, op] of operations()) {
      for (const [status, declared] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        expect(declared.$ref, `${key} ${status}`).toMatch(/^#\/components\/responses\//);
        const schema = resolve(declared).content?.['application/json'].schema.$ref;
        expect(schema, `${key} ${status}`).toBe(
          status === '422'
            ? '#/components/schemas/ValidationError'
            : status === '423'
              ? '#/components/schemas/Locked'
              : '#/components/schemas/Error',
        );
      }
    }
    expect(committed.components.schemas.Error).toMatchObject({
      required: ['detail'],
      properties: { detail: { type: 'string' } },
    });
    expect(committed.components.schemas.Locked.required).toEqual(['detail', 'locked_until']);
    expect(resolve({ $ref: '#/components/responses/TooManyRequests' }).headers).toHaveProperty('Retry-After');
  });

  it("declares each route's refusals (SPEC's Errors tables) and the pipeline's own answers", () => {
    expect(statuses('POST /auth/login')).toEqual(
      expect.arrayContaining(['200', '401', '403', '415', '422', '423', '429']),
    );
    expect(statuses('POST /services')).toEqual(
      expect.arrayContaining(['201', '400', '401', '403', '404', '409', '413', '415', '422']),
    );
    expect(statuses('GET /impex/download/{record_id}')).toEqual(['302', '403', '404', '410', '422', '503']);
    expect(statuses('POST /invites/accept/by-token')).toEqual(
      expect.arrayContaining(['200', '400', '404', '409', '422']),
    );
    expect(statuses('GET /admin/users')).toEqual(['200', '401', '403', '503']); // staff only; 503 on every operation (a dependency that keeps failing)
    expect(statuses('GET /plans')).toEqual(['200', '503']); // public, nothing to refuse
  });

  it("declares the next page's cursor header on the paged lists, and only there", () => {
    const paged = operations()
      .filter(([, op]) => op.responses['200']?.headers?.['X-Next-Cursor'])
      .map(([k]) => k);
    expect(paged).toEqual(
      expect.arrayContaining(['GET /auth/me/security-log', 'GET /admin/users/{user_id}/security-log']),
    );
    expect(paged).not.toContain('GET /services');
  });

  it('has servers, tags for every route group, unique operationIds, and security on every operation but the public ones', () => {
    expect(committed.servers).toEqual([expect.objectContaining({ url: '/' })]);
    const tagNames = committed.tags.map((t: { name: string }) => t.name);
    const ids = new Set<string>();
    const publicKeys = new Set(
      allRoutes()
        .filter((e) => e.route.auth === 'public')
        .map((e) => `${e.route.method} ${e.route.path}`),
    );
    for (const [key, op] of operations()) {
      expect(op.tags.length, key).toBe(1);
      expect(tagNames, key).toContain(op.tags[0]);
      expect(ids.has(op.operationId), `${key}: operationId ${op.operationId} repeated`).toBe(false);
      ids.add(op.operationId);
      const signedIn = [
        { bearer: [] },
        { cookie: [] },
        ...(key === 'GET /impex/status/{job_id}' ? [{ queryToken: [] }] : []),
      ];
      expect(op.security, key).toEqual(publicKeys.has(key) ? [] : signedIn);
    }
  });

  it('describes the webhook delivery (item 8b): a `webhooks` entry with exactly the headers a delivery carries, the event envelope, and how to verify in the webhooks tag', () => {
    const op = committed.webhooks.event.post;
    expect(op).toMatchObject({ tags: ['webhooks'], operationId: 'webhookEvent', security: [] });
    // The headers signatureHeaders sends during a rotation (all of them), each declared; the always-present ones required.
    const at = new Date('2026-11-21T10:00:00Z');
    const sent = signatureHeaders(
      {
        secret: 'whsec_Y3VycmVudA==',
        previous_secret: 'whsec_cHJldmlvdXM=',
        previous_secret_until: '2026-11-22T10:00:00Z',
      },
      'evt-1',
      at,
      '{}',
    );
    const declared = op.parameters as { name: string; in: string; required: boolean; schema: { pattern?: string } }[];
    expect(declared.map((p) => p.in)).toEqual(declared.map(() => 'header'));
    expect(declared.map((p) => p.name.toLowerCase()).sort()).toEqual(Object.keys(sent).sort());
    const outsideRotation = signatureHeaders(
      { secret: 'whsec_Y3VycmVudA==', previous_secret: null, previous_secret_until: null },
      'evt-1',
      at,
      '{}',
    );
    expect(
      declared
        .filter((p) => p.required)
        .map((p) => p.name.toLowerCase())
        .sort(),
    ).toEqual(Object.keys(outsideRotation).sort());
    for (const p of declared)
      if (p.schema.pattern) expect(sent[p.name.toLowerCase()], p.name).toMatch(new RegExp(p.schema.pattern));
    // The body: SPEC's envelope, every event type (and the test route's ping).
    expect(op.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/WebhookEvent' });
    const envelope = committed.components.schemas.WebhookEvent;
    expect(envelope.required).toEqual(['id', 'type', 'timestamp', 'data']);
    expect(envelope.properties.type.enum).toEqual([...EVENT_TYPES, 'ping']);
    // The webhooks tag says how to verify: the raw body, the whole secret string, the previous signature, Standard Webhooks.
    const tag = committed.tags.find((t: { name: string }) => t.name === 'webhooks').description as string;
    for (const words of [
      'X-Service-Signature: sha256=<hex>',
      'raw request body',
      'whole signing secret string',
      '`whsec_` prefix included',
      'X-Service-Signature-Previous',
      'webhook-signature',
      'timingSafeEqual',
    ])
      expect(tag).toContain(words);
  });

  it('bounds every array a request body may hold with maxItems, at any depth', () => {
    type Schema = Record<string, unknown>;
    const found: string[] = [];
    const unbounded: string[] = [];
    const walk = (schema: unknown, at: string, seen: Set<string>): void => {
      if (!schema || typeof schema !== 'object') return;
      const s = schema as Schema;
      if (typeof s.$ref === 'string') {
        if (seen.has(s.$ref)) return;
        walk(committed.components.schemas[s.$ref.split('/').pop()!], at, new Set([...seen, s.$ref]));
        return;
      }
      const types = ([] as unknown[]).concat(s.type ?? []);
      if (types.includes('array') || 'items' in s || 'prefixItems' in s) {
        found.push(at);
        if (typeof s.maxItems !== 'number') unbounded.push(at);
      }
      for (const [name, sub] of Object.entries((s.properties ?? {}) as Record<string, unknown>))
        walk(sub, `${at}.${name}`, seen);
      for (const key of ['items', 'additionalProperties', 'not']) walk(s[key], `${at}[]`, seen);
      for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'])
        for (const sub of (s[key] ?? []) as unknown[]) walk(sub, at, seen);
    };
    type Body = { requestBody?: { content: Record<string, { schema: unknown }> } };
    for (const [path, ops] of Object.entries(committed.paths as Record<string, Record<string, Body>>)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [type, media] of Object.entries(op.requestBody?.content ?? {}))
          walk(media.schema, `${method.toUpperCase()} ${path} (${type}) body`, new Set());
      }
    }
    // The walk reaches arrays inside unions and nested objects (a service's repository dependencies, a batch's items).
    expect(found).toEqual(
      expect.arrayContaining([
        'POST /projects/{project_id}/custom-roles (application/json) body.permissions',
        'PATCH /attachments/services/{service_id}/networks (application/json) body.network_ids',
        'POST /services (application/json) body.repository_deps',
        'POST /service-connections/batch (application/json) body.items',
      ]),
    );
    expect(unbounded, 'request-body arrays without maxItems').toEqual([]);
  });
});
