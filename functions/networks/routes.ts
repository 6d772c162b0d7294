import * as z from 'zod';
import { route, ok, created, noContent } from '#http/route';
import { syncHeaders, updatedSince, uuid, integer } from '#http/schemas';
import {
  ipv4Range,
  createNetwork,
  createNetworkBody,
  deleteNetwork,
  getNetwork,
  listNetworks,
  networkView,
  networkOut,
  updateNetwork,
  updateNetworkBody,
  attachedNetworks,
  MAX_ATTACHED_NETWORKS,
  replaceAttachedNetworks,
  withCustomFieldFilters,
  customFieldFilters,
} from '#domain/catalog';
import { lazySchema } from '#shared/lazy-schema';

const networkParams = lazySchema(() => z.object({ network_id: uuid() }));
/** SPEC: at most 10 networks per service or floor; a longer list is a 422 before any lookup. */
const attachmentBody = lazySchema(() => z.object({ network_ids: z.array(uuid()).max(MAX_ATTACHED_NETWORKS) }));

export const networksRoutes = [
  route({
    method: 'POST',
    path: '/networks',
    auth: 'user',
    summary: 'Create a network (name unique per environment)',
    body: createNetworkBody,
    responses: () => ({ 201: networkOut() }),
    refusals: [400, 403, 404],
    handler: async ({ body }, ctx) => created(networkView.project(await createNetwork(ctx, body))),
  }),
  route({
    method: 'GET',
    path: '/networks',
    auth: 'user',
    summary: "An environment's networks, filtered, ordered by name",
    query: () =>
      withCustomFieldFilters({
        project_id: uuid(),
        environment_id: uuid(),
        q: z.string().trim().optional(),
        vlan_id: integer().min(1).max(4094).optional(),
        mask: integer().min(0).max(32).optional(),
        range: ipv4Range().optional(),
        // Beyond SPEC: one page (without `limit` the whole list, as SPEC answers).
        limit: integer().min(1).max(1000).optional(),
        offset: integer().min(0).default(0),
        updated_since: updatedSince(),
      }),
    responses: () => ({ 200: z.array(networkOut()) }),
    refusals: [400, 403, 404],
    handler: async ({ query }, ctx) =>
      ok((await listNetworks(ctx, { ...query, cf: customFieldFilters(query) })).map(networkView.project), {
        headers: syncHeaders(query.updated_since, ctx.clock.receivedAt),
      }),
  }),
  route({
    method: 'GET',
    path: '/networks/{network_id}',
    auth: 'user',
    summary: 'One network',
    params: networkParams,
    responses: () => ({ 200: networkOut() }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => ok(networkView.project(await getNetwork(ctx, params))),
  }),
  route({
    method: 'PATCH',
    path: '/networks/{network_id}',
    auth: 'user',
    summary: 'Change a network',
    params: networkParams,
    body: updateNetworkBody,
    responses: () => ({ 200: networkOut() }),
    refusals: [400, 403, 404],
    handler: async ({ params, body }, ctx) => ok(networkView.project(await updateNetwork(ctx, { ...params, ...body }))),
  }),
  route({
    method: 'DELETE',
    path: '/networks/{network_id}',
    auth: 'user',
    summary: 'Delete a network (it leaves every attachment)',
    params: networkParams,
    responses: () => ({ 204: null }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => {
      await deleteNetwork(ctx, params);
      return noContent();
    },
  }),
  route({
    method: 'GET',
    path: '/attachments/services/{service_id}/networks',
    auth: 'user',
    summary: 'The networks a service is attached to',
    params: () => z.object({ service_id: uuid() }),
    responses: () => ({ 200: z.object({ service_id: z.uuid(), networks: z.array(networkOut()) }) }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => ok(await attachedNetworks(ctx, { holder: 'service', id: params.service_id })),
  }),
  route({
    method: 'PATCH',
    path: '/attachments/services/{service_id}/networks',
    auth: 'user',
    summary: "Replace a service's networks (at most 10)",
    params: () => z.object({ service_id: uuid() }),
    body: attachmentBody,
    responses: () => ({ 200: z.object({ service_id: z.uuid(), networks: z.array(networkOut()) }) }),
    refusals: [400, 403, 404],
    handler: async ({ params, body }, ctx) =>
      ok(await replaceAttachedNetworks(ctx, { holder: 'service', id: params.service_id, ...body })),
  }),
  route({
    method: 'GET',
    path: '/attachments/service-floors/{floor_id}/networks',
    auth: 'user',
    summary: 'The networks a server is attached to',
    params: () => z.object({ floor_id: uuid() }),
    responses: () => ({ 200: z.object({ service_floor_id: z.uuid(), networks: z.array(networkOut()) }) }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => ok(await attachedNetworks(ctx, { holder: 'floor', id: params.floor_id })),
  }),
  route({
    method: 'PATCH',
    path: '/attachments/service-floors/{floor_id}/networks',
    auth: 'user',
    summary: "Replace a server's networks (at most 10)",
    params: () => z.object({ floor_id: uuid() }),
    body: attachmentBody,
    responses: () => ({ 200: z.object({ service_floor_id: z.uuid(), networks: z.array(networkOut()) }) }),
    refusals: [400, 403, 404],
    handler: async ({ params, body }, ctx) =>
      ok(await replaceAttachedNetworks(ctx, { holder: 'floor', id: params.floor_id, ...body })),
  }),
];
