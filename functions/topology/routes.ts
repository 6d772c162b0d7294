import * as z from 'zod';
import { route, ok, created, noContent } from '#http/route';
import { topologyAnswer } from './topology-answer.ts';
import { syncHeaders, updatedSince, uuid, integer } from '#http/schemas';
import {
  ENTITY_TYPES,
  DIRECTIONS,
  connectionName,
  GROUP_KINDS,
  MAX_BATCH_CONNECTIONS,
  createConnection,
  createConnectionBatch,
  deleteChain,
  deleteConnection,
  listConnections,
  connectionView,
  connectionOut,
  updateChain,
  updateConnection,
  createLink,
  deleteLink,
  listLinks,
  linkView,
  linkOut,
  DEFAULT_MAX_DEPTH,
  MAX_MAX_DEPTH,
  blastRadiusOf,
  NODE_KINDS,
  EDGE_KINDS,
} from '#domain/catalog';
import { lazySchema } from '#shared/lazy-schema';

const entityType = lazySchema(() => z.enum(ENTITY_TYPES));
const direction = lazySchema(() => z.enum(DIRECTIONS));

/** One connection's own fields; an entity may not be connected to itself (a schema rule: 422 before any lookup). */
const connectionSpec = lazySchema(() =>
  z
    .object({
      a_type: entityType(),
      a_id: uuid(),
      b_type: entityType(),
      b_id: uuid(),
      direction: direction().default('none'),
      name: connectionName(),
    })
    .refine((c) => c.a_id !== c.b_id, { message: 'An entity may not be connected to itself', path: ['b_id'] }),
);

const scope = () => ({ project_id: uuid(), environment_id: uuid() });

/** PATCH bodies (one connection or a whole chain): direction and/or name, at least one. */
const changesBody = lazySchema(() =>
  z
    .object({ direction: direction().optional(), name: connectionName() })
    .refine((b) => b.direction !== undefined || b.name !== undefined, { message: 'Give direction or name' }),
);

const nodeRef = lazySchema(() => z.object({ type: entityType(), id: z.uuid() }));
const blastRadiusOut = lazySchema(() =>
  z.object({
    origin: nodeRef().extend({ name: z.string().nullable() }),
    max_depth: z.number().int(),
    affected: z.array(
      nodeRef().extend({
        name: z.string().nullable(),
        distance: z.number().int(),
        path: z.array(nodeRef()),
        via: z.enum(['link', 'connection', 'hosting']),
      }),
    ),
    counts: z.object({ services: z.number().int(), floors: z.number().int() }),
    truncated: z.boolean(),
  }),
);
/** GET /topology: columnar, every array of `nodes` (and of `edges`) one per node (edge); an edge's ends index the nodes. */
const column = <T extends z.ZodType>(of: T, description: string) => z.array(of).describe(description);
const topologyOut = lazySchema(() =>
  z.object({
    project_id: z.uuid(),
    environment_id: z.uuid(),
    nodes: z.object({
      kind: column(z.enum(NODE_KINDS), 'Services (by name), then servers (by hostname), then networks (by name)'),
      id: column(z.uuid(), "The service's, server's or network's id"),
      name: column(z.string().nullable(), "A service's or network's name; a server's hostname (null when it has none)"),
      group: column(z.string().nullable(), "A service's group name"),
      type: column(z.string().nullable(), "A server's type"),
      cidr: column(z.string().nullable(), "A network's CIDR"),
    }),
    edges: z.object({
      kind: column(
        z.enum(EDGE_KINDS),
        'Connections (in creation order), links, hosting (service to its server), network attachments (service or server to network)',
      ),
      source: column(
        z.number().int(),
        "Index into the nodes: a connection's end a, a link's dependent service, the hosted service, the attached service or server",
      ),
      target: column(
        z.number().int(),
        "Index into the nodes: a connection's end b, the service a link depends on, the hosting server, the network",
      ),
      direction: column(direction().nullable(), "A connection's direction (a_to_b: the arrow at the target)"),
      name: column(z.string().nullable(), "A connection's name"),
    }),
  }),
);
const blastRadiusQuery = lazySchema(() =>
  z.object({ max_depth: integer().min(1).max(MAX_MAX_DEPTH).default(DEFAULT_MAX_DEPTH) }),
);

/**
 * Connections, links and blast radius. The two blast-radius routes live under /services and
 * /service-floors but are declared here: API Gateway routes each route key to its own function.
 */
export const topologyRoutes = [
  route({
    method: 'POST',
    path: '/service-connections',
    auth: 'user',
    summary: 'Connect two services or floors of one environment',
    body: () => connectionSpec().and(z.object({ ...scope(), chain_id: uuid().nullish() })),
    responses: () => ({ 201: connectionOut() }),
    refusals: [400, 403, 404],
    handler: async ({ body }, ctx) => created(connectionView.project(await createConnection(ctx, body))),
  }),
  route({
    method: 'GET',
    path: '/service-connections',
    auth: 'user',
    summary: "An environment's connections (optionally touching one entity, or of one chain)",
    query: () =>
      z.object({
        ...scope(),
        entity_id: uuid().optional(),
        chain_id: uuid().optional(),
        // Beyond SPEC: one page (without `limit` the whole list, as SPEC answers).
        limit: integer().min(1).max(1000).optional(),
        offset: integer().min(0).default(0),
        updated_since: updatedSince(),
      }),
    responses: () => ({ 200: z.array(connectionOut()) }),
    refusals: [400, 403, 404],
    handler: async ({ query }, ctx) =>
      ok((await listConnections(ctx, query)).map(connectionView.project), {
        headers: syncHeaders(query.updated_since, ctx.clock.receivedAt),
      }),
  }),
  route({
    method: 'POST',
    path: '/service-connections/batch',
    auth: 'user',
    summary: 'Create a chain or hub of connections at once (one chain_id, all or nothing)',
    body: () =>
      z.object({
        ...scope(),
        group_kind: z.enum(GROUP_KINDS),
        items: z.array(connectionSpec()).min(1).max(MAX_BATCH_CONNECTIONS),
      }),
    responses: () => ({ 201: z.array(connectionOut()) }),
    refusals: [400, 403, 404],
    handler: async ({ body }, ctx) => created((await createConnectionBatch(ctx, body)).map(connectionView.project)),
  }),
  route({
    method: 'PATCH',
    path: '/service-connections/chains/{chain_id}',
    auth: 'user',
    summary: 'Set direction and/or name on every connection of a chain or hub',
    params: () => z.object({ chain_id: uuid() }),
    body: changesBody,
    responses: () => ({ 200: z.array(connectionOut()) }),
    refusals: [400, 403, 404],
    handler: async ({ params, body }, ctx) =>
      ok((await updateChain(ctx, { ...params, ...body })).map(connectionView.project)),
  }),
  route({
    method: 'DELETE',
    path: '/service-connections/chains/{chain_id}',
    auth: 'user',
    summary: 'Delete a chain or hub with all its connections',
    params: () => z.object({ chain_id: uuid() }),
    responses: () => ({ 204: null }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => {
      await deleteChain(ctx, params);
      return noContent();
    },
  }),
  route({
    method: 'PATCH',
    path: '/service-connections/{connection_id}',
    auth: 'user',
    summary: "Change a connection's direction or name",
    params: () => z.object({ connection_id: uuid() }),
    body: changesBody,
    responses: () => ({ 200: connectionOut() }),
    refusals: [400, 403, 404],
    handler: async ({ params, body }, ctx) =>
      ok(connectionView.project(await updateConnection(ctx, { ...params, ...body }))),
  }),
  route({
    method: 'DELETE',
    path: '/service-connections/{connection_id}',
    auth: 'user',
    summary: 'Delete a connection',
    params: () => z.object({ connection_id: uuid() }),
    responses: () => ({ 204: null }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => {
      await deleteConnection(ctx, params);
      return noContent();
    },
  }),
  route({
    method: 'GET',
    path: '/service-links',
    auth: 'user',
    summary: "An environment's service links (edge list)",
    query: () => z.object({ ...scope(), service_id: uuid().optional(), updated_since: updatedSince() }),
    responses: () => ({ 200: z.array(linkOut()) }),
    refusals: [400, 403, 404],
    handler: async ({ query }, ctx) =>
      ok((await listLinks(ctx, query)).map(linkView.project), {
        headers: syncHeaders(query.updated_since, ctx.clock.receivedAt),
      }),
  }),
  route({
    method: 'POST',
    path: '/service-links',
    auth: 'user',
    summary: 'Link two services (from depends on to)',
    body: () =>
      z
        .object({ ...scope(), from_service_id: uuid(), to_service_id: uuid() })
        .refine((l) => l.from_service_id !== l.to_service_id, {
          message: 'A service may not be linked to itself',
          path: ['to_service_id'],
        }),
    responses: () => ({ 201: linkOut() }),
    refusals: [400, 403, 404],
    handler: async ({ body }, ctx) => created(linkView.project(await createLink(ctx, body))),
  }),
  route({
    method: 'DELETE',
    path: '/service-links/{link_id}',
    auth: 'user',
    summary: 'Delete a service link',
    params: () => z.object({ link_id: uuid() }),
    responses: () => ({ 204: null }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => {
      await deleteLink(ctx, params);
      return noContent();
    },
  }),
  route({
    method: 'GET',
    path: '/topology',
    auth: 'user',
    summary:
      "An environment's topology in one compact read: services, servers and networks, and the connections, links, hosting and attachments between them. Answered with an ETag; a request whose If-None-Match holds it is answered 304 with no body. Compressed (br or gzip) as Accept-Encoding allows.",
    query: () => z.object(scope()),
    responses: () => ({ 200: topologyOut(), 304: null }),
    refusals: [400, 403, 404],
    handler: ({ query, headers }, ctx) => topologyAnswer(ctx, query, headers),
  }),
  route({
    method: 'GET',
    path: '/services/{service_id}/blast-radius',
    auth: 'user',
    summary: 'What else is affected if this service fails',
    params: () => z.object({ service_id: uuid() }),
    query: blastRadiusQuery,
    responses: () => ({ 200: blastRadiusOut() }),
    refusals: [403, 404],
    handler: async ({ params, query }, ctx) =>
      ok(await blastRadiusOf(ctx, { type: 'service', id: params.service_id, ...query })),
  }),
  route({
    method: 'GET',
    path: '/service-floors/{floor_id}/blast-radius',
    auth: 'user',
    summary: 'What depends on this server (what fails with it)',
    params: () => z.object({ floor_id: uuid() }),
    query: blastRadiusQuery,
    responses: () => ({ 200: blastRadiusOut() }),
    refusals: [403, 404],
    handler: async ({ params, query }, ctx) =>
      ok(await blastRadiusOf(ctx, { type: 'floor', id: params.floor_id, ...query })),
  }),
];
