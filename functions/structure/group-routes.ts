import { z } from 'zod';
import { route, ok, created, noContent } from '#http/route';
import { name, syncHeaders, text, updatedSince, uuid } from '#http/schemas';
import { accessInEnvironment, GROUP_NOT_FOUND, NOT_AUTHORIZED_VIEW_GROUPS, SUBGROUP_NOT_FOUND, createGroup, createSubgroupIn, deleteGroup, deleteSubgroup, listGroups, listSubgroups, toGroupOut, toSubgroupOut, updateGroup, updateSubgroup, type Group, type Subgroup, accessToEnvItem } from '#domain/tenancy';
import { notFound } from '#shared/errors';

const description = text(2000);
const groupOut = z.object({
  id: z.uuid(), project_id: z.uuid(), environment_id: z.uuid(), name: z.string(), description: z.string().nullable(), updated_at: z.string(), deleted_at: z.string().nullable(),
});
const subgroupOut = groupOut.extend({ group_id: z.uuid() });
/** A PATCH must change something. */
const patchBody = z
  .object({ name: name().optional(), description })
  .refine((b) => b.name !== undefined || b.description !== undefined, { message: 'At least one of name, description is required' });

export const groupRoutes = [
  route({
    method: 'GET', path: '/groups', auth: 'user', summary: "An environment's groups, by name",
    query: z.object({ project_id: uuid, environment_id: uuid, updated_since: updatedSince }),
    responses: { 200: z.array(groupOut) },
    handler: async ({ principal, query }, ctx) => {
      const { access, env } = await accessInEnvironment(query.project_id, principal.account.id, query.environment_id);
      access.require('groups.view', NOT_AUTHORIZED_VIEW_GROUPS, env.id);
      const groups = await listGroups(env.project_id, env.id, query.updated_since);
      return ok(groups.map(toGroupOut), { headers: syncHeaders(query.updated_since, ctx.clock.receivedAt) });
    },
  }),
  route({
    method: 'POST', path: '/groups', auth: 'user', summary: 'Create a group in an environment (name unique in the environment)',
    body: z.object({ project_id: uuid, environment_id: uuid, name: name(), description }),
    responses: { 201: groupOut },
    handler: async ({ principal, body }, ctx) => {
      const { access, env } = await accessInEnvironment(body.project_id, principal.account.id, body.environment_id);
      return created(toGroupOut(await createGroup(access, env, body, ctx)));
    },
  }),
  route({
    method: 'PATCH', path: '/groups/{group_id}', auth: 'user', summary: 'Rename a group or change its description',
    params: z.object({ group_id: uuid }),
    body: patchBody,
    responses: { 200: groupOut },
    handler: async ({ principal, params, body }, ctx) => {
      const { access, item } = await accessToEnvItem<Group>(params.group_id, 'group', principal.account.id, notFound(GROUP_NOT_FOUND));
      return ok(toGroupOut(await updateGroup(access, item, body, ctx)));
    },
  }),
  route({
    method: 'DELETE', path: '/groups/{group_id}', auth: 'user', summary: 'Soft-delete a group and its subgroups',
    params: z.object({ group_id: uuid }),
    responses: { 204: null },
    handler: async ({ principal, params }, ctx) => {
      const { access, item } = await accessToEnvItem<Group>(params.group_id, 'group', principal.account.id, notFound(GROUP_NOT_FOUND));
      await deleteGroup(access, item, ctx);
      return noContent();
    },
  }),
  route({
    method: 'GET', path: '/subgroups', auth: 'user', summary: "An environment's subgroups, optionally of one group",
    query: z.object({ project_id: uuid, environment_id: uuid, group_id: uuid.optional(), updated_since: updatedSince }),
    responses: { 200: z.array(subgroupOut) },
    handler: async ({ principal, query }, ctx) => {
      const { access, env } = await accessInEnvironment(query.project_id, principal.account.id, query.environment_id);
      access.require('groups.view', NOT_AUTHORIZED_VIEW_GROUPS, env.id);
      const subgroups = await listSubgroups(env.project_id, env.id, { groupId: query.group_id, updatedSince: query.updated_since });
      return ok(subgroups.map(toSubgroupOut), { headers: syncHeaders(query.updated_since, ctx.clock.receivedAt) });
    },
  }),
  route({
    method: 'POST', path: '/subgroups', auth: 'user', summary: 'Create a subgroup under a group (name unique in the group)',
    body: z.object({ project_id: uuid, environment_id: uuid, group_id: uuid, name: name(), description }),
    responses: { 201: subgroupOut },
    handler: async ({ principal, body }, ctx) => {
      return created(toSubgroupOut(await createSubgroupIn(principal.account.id, body, ctx)));
    },
  }),
  route({
    method: 'PATCH', path: '/subgroups/{subgroup_id}', auth: 'user', summary: 'Rename a subgroup or change its description',
    params: z.object({ subgroup_id: uuid }),
    body: patchBody,
    responses: { 200: subgroupOut },
    handler: async ({ principal, params, body }, ctx) => {
      const { access, item } = await accessToEnvItem<Subgroup>(params.subgroup_id, 'subgroup', principal.account.id, notFound(SUBGROUP_NOT_FOUND));
      return ok(toSubgroupOut(await updateSubgroup(access, item, body, ctx)));
    },
  }),
  route({
    method: 'DELETE', path: '/subgroups/{subgroup_id}', auth: 'user', summary: 'Soft-delete a subgroup',
    params: z.object({ subgroup_id: uuid }),
    responses: { 204: null },
    handler: async ({ principal, params }, ctx) => {
      const { access, item } = await accessToEnvItem<Subgroup>(params.subgroup_id, 'subgroup', principal.account.id, notFound(SUBGROUP_NOT_FOUND));
      await deleteSubgroup(access, item, ctx);
      return noContent();
    },
  }),
];
