import * as z from 'zod';
import { route, ok, noContent } from '#http/route';
import { uuid } from '#http/schemas';
import { deleteConnection, getConnection, putConnection, ssoConnectionBody, verifyDomain } from '#domain/sso';
import { lazySchema } from '#shared/lazy-schema';

const params = lazySchema(() => z.object({ project_id: uuid() }));
const domainOut = lazySchema(() =>
  z.object({ domain: z.string(), verified: z.boolean(), txt_name: z.string(), txt_value: z.string() }),
);
const connectionOut = lazySchema(() =>
  z.object({
    project_id: z.uuid(),
    issuer: z.string(),
    client_id: z.string(),
    domains: z.array(domainOut()),
    required: z.boolean(),
    jit_role: z.object({ environment_id: z.uuid(), role: z.string() }).nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  }),
);

/** A project's single sign-on connection: the owner only, plan feature `sso`. */
export const ssoConnectionRoutes = [
  route({
    method: 'PUT',
    path: '/projects/{project_id}/sso',
    auth: 'user',
    summary:
      "Create or replace the project's single sign-on connection (OpenID Connect); the issuer's discovery document is checked, the client secret sealed and never returned",
    params,
    body: ssoConnectionBody,
    responses: () => ({ 200: connectionOut() }),
    refusals: [403, 404, 409],
    handler: async ({ params, body }, ctx) => ok(await putConnection(ctx, { ...body, ...params })),
  }),
  route({
    method: 'GET',
    path: '/projects/{project_id}/sso',
    auth: 'user',
    summary: "The project's single sign-on connection, without its secret, with each domain's TXT challenge",
    params,
    responses: () => ({ 200: connectionOut() }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => ok(await getConnection(ctx, params)),
  }),
  route({
    method: 'DELETE',
    path: '/projects/{project_id}/sso',
    auth: 'user',
    summary:
      "Remove the project's single sign-on connection and release its domains (linked identities stay with their accounts)",
    params,
    responses: () => ({ 204: null }),
    refusals: [403, 404, 409],
    handler: async ({ params }, ctx) => {
      await deleteConnection(ctx, params);
      return noContent();
    },
  }),
  route({
    method: 'POST',
    path: '/projects/{project_id}/sso/domains/{domain}/verify',
    auth: 'user',
    summary:
      "Look up the domain's TXT challenge (`_infracat-challenge.<domain>`); found, the domain is verified for this project",
    params: () => z.object({ project_id: uuid(), domain: z.string().max(253) }),
    responses: () => ({ 200: domainOut() }),
    refusals: [403, 404, 409],
    handler: async ({ params }, ctx) => ok(await verifyDomain(ctx, params)),
  }),
];
