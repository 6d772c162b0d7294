import { z } from 'zod';
import { route, ok, created, noContent } from '#http/route';
import { syncHeaders, updatedSince, uuid } from '#http/schemas';
import { repeatable, createService, createServiceBody, deleteService, getService, listServices, repositoryDep, repositoryDeps, toServiceOut, updateService, updateServiceBody } from '#domain/catalog';

const nullableString = z.string().nullable();
const serviceOut = z.object({
  id: z.uuid(), name: z.string(), owner_user_id: z.uuid(), project_id: z.uuid(), environment_id: z.uuid(),
  service_floor_id: z.uuid().nullable(), group_id: z.uuid().nullable(), subgroup_id: z.uuid().nullable(),
  group_name: nullableString, subgroup_name: nullableString, type: z.string(), category: nullableString, replicas: z.number().int().nullable(),
  provider: nullableString, provider_region: nullableString, provider_zone: nullableString, tracker_project_key: nullableString,
  port: z.number().int().nullable(), ip_address: nullableString, agent_id: z.uuid().nullable(), responsible_project_user_id: z.uuid().nullable(),
  responsible_user_id: z.uuid().nullable(), responsible_name: nullableString, programming_language: nullableString,
  programming_language_version: nullableString, repository_url: nullableString, version: nullableString, links: z.array(z.string()),
  tags: z.array(z.string()), repository_deps: z.array(repositoryDep), updated_at: z.string(), deleted_at: nullableString,
});
const serviceParams = z.object({ service_id: uuid });
const optionalFilter = z.string().trim().optional();

export const servicesRoutes = [
  route({
    method: 'POST', path: '/services', auth: 'user', summary: 'Register a service in an environment (within the plan limit)',
    body: createServiceBody,
    responses: { 201: serviceOut },
    handler: async ({ principal, body }, ctx) => {
      const { service, resolved } = await createService(principal.account.id, body, ctx);
      return created(toServiceOut(service, resolved));
    },
  }),
  route({
    method: 'GET', path: '/services', auth: 'user', summary: "An environment's services, filtered, one page ordered by name",
    query: z.object({
      project_id: uuid,
      environment_id: uuid,
      name: optionalFilter,
      tags: repeatable.optional(),
      language: optionalFilter,
      location: optionalFilter,
      limit: z.coerce.number().int().min(1).max(1000).default(200),
      offset: z.coerce.number().int().min(0).default(0),
      updated_since: updatedSince,
    }),
    responses: { 200: z.array(serviceOut) },
    handler: async ({ principal, query }, ctx) => {
      const { project_id, environment_id, ...filters } = query;
      const services = await listServices(principal.account.id, project_id, environment_id, filters);
      return ok(services, { headers: syncHeaders(query.updated_since, ctx.clock.receivedAt) });
    },
  }),
  route({
    method: 'GET', path: '/services/{service_id}', auth: 'user', summary: 'One service, with its type and group names resolved',
    params: serviceParams,
    responses: { 200: serviceOut },
    handler: async ({ principal, params }) => ok(await getService(params.service_id, principal.account.id)),
  }),
  route({
    method: 'PATCH', path: '/services/{service_id}', auth: 'user', summary: 'Change a service (project and environment never change)',
    params: serviceParams,
    body: updateServiceBody,
    responses: { 200: serviceOut },
    handler: async ({ principal, params, body }, ctx) => ok(await updateService(params.service_id, principal.account.id, body, ctx)),
  }),
  route({
    method: 'DELETE', path: '/services/{service_id}', auth: 'user', summary: 'Delete a service with its connections, links and network attachments',
    params: serviceParams,
    responses: { 204: null },
    handler: async ({ principal, params }, ctx) => {
      await deleteService(params.service_id, principal.account.id, ctx);
      return noContent();
    },
  }),
  route({
    method: 'GET', path: '/services/{service_id}/repository-deps', auth: 'user', summary: "A service's declared repository dependencies",
    params: serviceParams,
    responses: { 200: z.array(repositoryDep) },
    handler: async ({ principal, params }) => ok(await repositoryDeps(params.service_id, principal.account.id)),
  }),
];
