import * as z from 'zod';
import { route, ok, created, noContent } from '#http/route';
import { name, syncHeaders, updatedSince, uuid } from '#http/schemas';
import {
  groupDescription,
  createGroup,
  createSubgroup,
  deleteGroup,
  deleteSubgroup,
  listGroups,
  listSubgroups,
  toGroupOut,
  toSubgroupOut,
  updateGroup,
  updateSubgroup,
} from '#domain/tenancy';
import { lazySchema } from '#shared/lazy-schema';

const groupOut = lazySchema(() =>
  z.object({
    id: z.uuid(),
    project_id: z.uuid(),
    environment_id: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    updated_at: z.string(),
    deleted_at: z.string().nullable(),
  }),
);
const subgroupOut = lazySchema(() => groupOut().extend({ group_id: z.uuid() }));
/** A PATCH must change something. */
const patchBody = lazySchema(() =>
  z
    .object({ name: name().optional(), description: groupDescription() })
    .refine((b) => b.name !== undefined || b.description !== undefined, {
      message: 'At least one of name, description is required',
    }),
);

export const groupRoutes = [
  route({
    method: 'GET',
    path: '/groups',
    auth: 'user',
    summary: "An environment's groups, by name",
    query: () => z.object({ project_id: uuid(), environment_id: uuid(), updated_since: updatedSince() }),
    responses: () => ({ 200: z.array(groupOut()) }),
    refusals: [400, 403, 404],
    handler: async ({ query }, ctx) => {
      const groups = await listGroups(ctx, query);
      return ok(groups.map(toGroupOut), { headers: syncHeaders(query.updated_since, ctx.clock.receivedAt) });
    },
  }),
  route({
    method: 'POST',
    path: '/groups',
    auth: 'user',
    summary: 'Create a group in an environment (name unique in the environment)',
    body: () => z.object({ project_id: uuid(), environment_id: uuid(), name: name(), description: groupDescription() }),
    responses: () => ({ 201: groupOut() }),
    refusals: [400, 403, 404],
    handler: async ({ body }, ctx) => created(toGroupOut(await createGroup(ctx, body))),
  }),
  route({
    method: 'PATCH',
    path: '/groups/{group_id}',
    auth: 'user',
    summary: 'Rename a group or change its description',
    params: () => z.object({ group_id: uuid() }),
    body: patchBody,
    responses: () => ({ 200: groupOut() }),
    refusals: [400, 403, 404],
    handler: async ({ params, body }, ctx) => ok(toGroupOut(await updateGroup(ctx, { id: params.group_id, ...body }))),
  }),
  route({
    method: 'DELETE',
    path: '/groups/{group_id}',
    auth: 'user',
    summary: 'Soft-delete a group and its subgroups',
    params: () => z.object({ group_id: uuid() }),
    responses: () => ({ 204: null }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => {
      await deleteGroup(ctx, { id: params.group_id });
      return noContent();
    },
  }),
  route({
    method: 'GET',
    path: '/subgroups',
    auth: 'user',
    summary: "An environment's subgroups, optionally of one group",
    query: () =>
      z.object({
        project_id: uuid(),
        environment_id: uuid(),
        group_id: uuid().optional(),
        updated_since: updatedSince(),
      }),
    responses: () => ({ 200: z.array(subgroupOut()) }),
    refusals: [400, 403, 404],
    handler: async ({ query }, ctx) => {
      const subgroups = await listSubgroups(ctx, query);
      return ok(subgroups.map(toSubgroupOut), { headers: syncHeaders(query.updated_since, ctx.clock.receivedAt) });
    },
  }),
  route({
    method: 'POST',
    path: '/subgroups',
    auth: 'user',
    summary: 'Create a subgroup under a group (name unique in the group)',
    body: () =>
      z.object({
        project_id: uuid(),
        environment_id: uuid(),
        group_id: uuid(),
        name: name(),
        description: groupDescription(),
      }),
    responses: () => ({ 201: subgroupOut() }),
    refusals: [400, 403, 404],
    handler: async ({ body }, ctx) => created(toSubgroupOut(await createSubgroup(ctx, body))),
  }),
  route({
    method: 'PATCH',
    path: '/subgroups/{subgroup_id}',
    auth: 'user',
    summary: 'Rename a subgroup or change its description',
    params: () => z.object({ subgroup_id: uuid() }),
    body: patchBody,
    responses: () => ({ 200: subgroupOut() }),
    refusals: [400, 403, 404],
    handler: async ({ params, body }, ctx) =>
      ok(toSubgroupOut(await updateSubgroup(ctx, { id: params.subgroup_id, ...body }))),
  }),
  route({
    method: 'DELETE',
    path: '/subgroups/{subgroup_id}',
    auth: 'user',
    summary: 'Soft-delete a subgroup',
    params: () => z.object({ subgroup_id: uuid() }),
    responses: () => ({ 204: null }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => {
      await deleteSubgroup(ctx, { id: params.subgroup_id });
      return noContent();
    },
  }),
];
