import * as z from 'zod';
import { route, ok, created, noContent } from '#http/route';
import { syncHeaders, updatedSince, uuid, integer } from '#http/schemas';
import {
  repeatable,
  createService,
  createServiceBody,
  deleteService,
  getService,
  listServices,
  repositoryDeps,
  serviceView,
  storedRepositoryDep,
  updateService,
  updateServiceBody,
  withCustomFieldFilters,
  customFieldFilters,
} from '#domain/catalog';
import { lazySchema } from '#shared/lazy-schema';
import { searchRoute } from './search-route.ts';

const serviceParams = lazySchema(() => z.object({ service_id: uuid() }));
const optionalFilter = lazySchema(() => z.string().trim().optional());

export const servicesRoutes = [
  route({
    method: 'POST',
    path: '/services',
    auth: 'user',
    summary: 'Register a service in an environment (within the plan limit)',
    body: createServiceBody,
    responses: () => ({ 201: serviceView.schema }),
    refusals: [400, 403, 404],
    handler: async ({ body }, ctx) => created(await createService(ctx, body)),
  }),
  route({
    method: 'GET',
    path: '/services',
    auth: 'user',
    summary: "An environment's services, filtered, one page ordered by name",
    query: () =>
      withCustomFieldFilters({
        project_id: uuid(),
        environment_id: uuid(),
        name: optionalFilter(),
        tags: repeatable().optional(),
        language: optionalFilter(),
        location: optionalFilter(),
        limit: integer().min(1).max(1000).default(200),
        offset: integer().min(0).default(0),
        updated_since: updatedSince(),
      }),
    responses: () => ({ 200: z.array(serviceView.schema) }),
    refusals: [400, 403, 404],
    handler: async ({ query }, ctx) =>
      ok(await listServices(ctx, { ...query, cf: customFieldFilters(query) }), {
        headers: syncHeaders(query.updated_since, ctx.clock.receivedAt),
      }),
  }),
  route({
    method: 'GET',
    path: '/services/{service_id}',
    auth: 'user',
    summary: 'One service, with its type and group names resolved',
    params: serviceParams,
    responses: () => ({ 200: serviceView.schema }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => ok(await getService(ctx, params)),
  }),
  route({
    method: 'PATCH',
    path: '/services/{service_id}',
    auth: 'user',
    summary: 'Change a service (project and environment never change)',
    params: serviceParams,
    body: updateServiceBody,
    responses: () => ({ 200: serviceView.schema }),
    refusals: [400, 403, 404],
    handler: async ({ params, body }, ctx) => ok(await updateService(ctx, { ...params, ...body })),
  }),
  route({
    method: 'DELETE',
    path: '/services/{service_id}',
    auth: 'user',
    summary: 'Delete a service with its connections, links and network attachments',
    params: serviceParams,
    responses: () => ({ 204: null }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => {
      await deleteService(ctx, params);
      return noContent();
    },
  }),
  route({
    method: 'GET',
    path: '/services/{service_id}/repository-deps',
    auth: 'user',
    summary: "A service's declared repository dependencies",
    params: serviceParams,
    responses: () => ({ 200: z.array(storedRepositoryDep()) }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => ok(await repositoryDeps(ctx, params)),
  }),
  searchRoute,
];
