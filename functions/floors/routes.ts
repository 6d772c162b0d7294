import * as z from 'zod';
import { route, ok, created, noContent } from '#http/route';
import { syncHeaders, updatedSince, uuid, integer } from '#http/schemas';
import {
  repeatable,
  createFloor,
  createFloorBody,
  deleteFloor,
  floorType,
  floorView,
  getFloor,
  listFloors,
  updateFloor,
  updateFloorBody,
  withCustomFieldFilters,
  customFieldFilters,
} from '#domain/catalog';
import { lazySchema } from '#shared/lazy-schema';

const floorParams = lazySchema(() => z.object({ floor_id: uuid() }));
const optionalFilter = lazySchema(() => z.string().trim().optional());

export const floorsRoutes = [
  route({
    method: 'POST',
    path: '/service-floors',
    auth: 'user',
    summary: 'Register a server (VM, container, bare metal, other)',
    body: createFloorBody,
    responses: () => ({ 201: floorView.schema }),
    refusals: [400, 403, 404],
    handler: async ({ body }, ctx) => created(await createFloor(ctx, body)),
  }),
  route({
    method: 'GET',
    path: '/service-floors',
    auth: 'user',
    summary: "An environment's servers, filtered, ordered by hostname",
    query: () =>
      withCustomFieldFilters({
        project_id: uuid(),
        environment_id: uuid(),
        hostname: optionalFilter(),
        tags: repeatable().optional(),
        type: floorType().optional(),
        location: optionalFilter(),
        zone: optionalFilter(),
        // Beyond SPEC: one page (without `limit` the whole list, as SPEC answers).
        limit: integer().min(1).max(1000).optional(),
        offset: integer().min(0).default(0),
        updated_since: updatedSince(),
      }),
    responses: () => ({ 200: z.array(floorView.schema) }),
    refusals: [400, 403, 404],
    handler: async ({ query }, ctx) =>
      ok(await listFloors(ctx, { ...query, cf: customFieldFilters(query) }), {
        headers: syncHeaders(query.updated_since, ctx.clock.receivedAt),
      }),
  }),
  route({
    method: 'GET',
    path: '/service-floors/{floor_id}',
    auth: 'user',
    summary: 'One server',
    params: floorParams,
    responses: () => ({ 200: floorView.schema }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => ok(await getFloor(ctx, params)),
  }),
  route({
    method: 'PATCH',
    path: '/service-floors/{floor_id}',
    auth: 'user',
    summary: 'Change a server (project and environment never change)',
    params: floorParams,
    body: updateFloorBody,
    responses: () => ({ 200: floorView.schema }),
    refusals: [400, 403, 404],
    handler: async ({ params, body }, ctx) => ok(await updateFloor(ctx, { ...params, ...body })),
  }),
  route({
    method: 'DELETE',
    path: '/service-floors/{floor_id}',
    auth: 'user',
    summary: 'Delete a server: its services are detached, its connections and attachments removed',
    params: floorParams,
    responses: () => ({ 204: null }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => {
      await deleteFloor(ctx, params);
      return noContent();
    },
  }),
];
