import { z } from 'zod';
import { route, ok, created, noContent } from '#http/route';
import { syncHeaders, updatedSince, uuid } from '#http/schemas';
import { repeatable, createFloor, createFloorBody, deleteFloor, floorType, getFloor, listFloors, toFloorOut, updateFloor, updateFloorBody } from '#domain/catalog';

const nullableString = z.string().nullable();
const nullableInt = z.number().int().nullable();
const floorOut = z.object({
  id: z.uuid(), project_id: z.uuid(), environment_id: z.uuid(), type: floorType, hostname: nullableString, provider: nullableString,
  provider_region: nullableString, provider_zone: nullableString, provider_instance_id: nullableString, ip_address: nullableString,
  ip_addresses: z.array(z.string()), cpu: nullableInt, memory_mb: nullableInt, storage_gb: nullableInt, instances: nullableInt,
  tags: z.array(z.string()), updated_at: z.string(), deleted_at: nullableString,
});
const floorParams = z.object({ floor_id: uuid });
const optionalFilter = z.string().trim().optional();

export const floorsRoutes = [
  route({
    method: 'POST', path: '/service-floors', auth: 'user', summary: 'Register a server (VM, container, bare metal, other)',
    body: createFloorBody,
    responses: { 201: floorOut },
    handler: async ({ principal, body }, ctx) => created(toFloorOut(await createFloor(principal.account.id, body, ctx))),
  }),
  route({
    method: 'GET', path: '/service-floors', auth: 'user', summary: "An environment's servers, filtered, ordered by hostname",
    query: z.object({
      project_id: uuid,
      environment_id: uuid,
      hostname: optionalFilter,
      tags: repeatable.optional(),
      type: floorType.optional(),
      location: optionalFilter,
      zone: optionalFilter,
      updated_since: updatedSince,
    }),
    responses: { 200: z.array(floorOut) },
    handler: async ({ principal, query }, ctx) => {
      const { project_id, environment_id, ...filters } = query;
      const floors = await listFloors(principal.account.id, project_id, environment_id, filters);
      return ok(floors.map(toFloorOut), { headers: syncHeaders(query.updated_since, ctx.clock.receivedAt) });
    },
  }),
  route({
    method: 'GET', path: '/service-floors/{floor_id}', auth: 'user', summary: 'One server',
    params: floorParams,
    responses: { 200: floorOut },
    handler: async ({ principal, params }) => ok(toFloorOut(await getFloor(params.floor_id, principal.account.id))),
  }),
  route({
    method: 'PATCH', path: '/service-floors/{floor_id}', auth: 'user', summary: 'Change a server (project and environment never change)',
    params: floorParams,
    body: updateFloorBody,
    responses: { 200: floorOut },
    handler: async ({ principal, params, body }, ctx) => ok(toFloorOut(await updateFloor(params.floor_id, principal.account.id, body, ctx))),
  }),
  route({
    method: 'DELETE', path: '/service-floors/{floor_id}', auth: 'user', summary: 'Delete a server: its services are detached, its connections and attachments removed',
    params: floorParams,
    responses: { 204: null },
    handler: async ({ principal, params }, ctx) => {
      await deleteFloor(params.floor_id, principal.account.id, ctx);
      return noContent();
    },
  }),
];
