import * as z from 'zod';
import { route, ok, created, noContent } from '#http/route';
import { name, syncHeaders, updatedSince, uuid } from '#http/schemas';
import { ENV_ROLES } from '#auth/permissions';
import {
  createEnvironment,
  deleteEnvironment,
  environmentStats,
  listEnvironments,
  renameEnvironment,
  environmentView,
  assignEnvRole,
  listEnvRoles,
  removeEnvRole,
  toEnvRoleOut,
} from '#domain/tenancy';
import { liveTicket } from '#domain/live';
import { lazySchema } from '#shared/lazy-schema';

const environmentOut = () => environmentView.schema;
const roleOut = lazySchema(() =>
  z.object({ id: z.uuid(), environment_id: z.uuid(), user_id: z.uuid(), role: z.enum(ENV_ROLES) }),
);
const envParams = lazySchema(() => z.object({ environment_id: uuid() }));

export const environmentRoutes = [
  route({
    method: 'GET',
    path: '/environments',
    auth: 'user',
    summary: "A project's environments (archived excluded)",
    query: () => z.object({ project_id: uuid(), updated_since: updatedSince() }),
    responses: () => ({ 200: z.array(environmentOut()) }),
    refusals: [403, 404],
    handler: async ({ query }, ctx) => {
      const envs = await listEnvironments(ctx, query);
      return ok(
        envs.map((e) => environmentView.project(e)),
        { headers: syncHeaders(query.updated_since, ctx.clock.receivedAt) },
      );
    },
  }),
  route({
    method: 'POST',
    path: '/environments',
    auth: 'user',
    summary: 'Create an environment (within the plan limit)',
    body: () => z.object({ name: name(), project_id: uuid() }),
    responses: () => ({ 201: environmentOut() }),
    refusals: [400, 403, 404],
    handler: async ({ body }, ctx) => created(environmentView.project(await createEnvironment(ctx, body))),
  }),
  route({
    method: 'GET',
    path: '/environments/stats',
    auth: 'user',
    summary: 'Counts per environment of a project',
    query: () => z.object({ project_id: uuid() }),
    responses: () => ({
      200: z.array(
        z.object({
          environment_id: z.uuid(),
          name: z.string(),
          services: z.int(),
          servers: z.int(),
          groups: z.int(),
          networks: z.int(),
        }),
      ),
    }),
    refusals: [403, 404],
    handler: async ({ query }, ctx) => ok(await environmentStats(ctx, query)),
  }),
  route({
    method: 'PATCH',
    path: '/environments/{environment_id}',
    auth: 'user',
    summary: 'Rename an environment',
    params: envParams,
    body: () => z.object({ name: name() }),
    responses: () => ({ 200: environmentOut() }),
    refusals: [400, 403, 404],
    handler: async ({ params, body }, ctx) =>
      ok(environmentView.project(await renameEnvironment(ctx, { id: params.environment_id, ...body }))),
  }),
  route({
    method: 'DELETE',
    path: '/environments/{environment_id}',
    auth: 'user',
    summary: 'Soft-delete an environment and what it holds',
    params: envParams,
    responses: () => ({ 204: null }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => {
      await deleteEnvironment(ctx, { id: params.environment_id });
      return noContent();
    },
  }),
  route({
    method: 'POST',
    path: '/environments/{environment_id}/roles',
    auth: 'user',
    summary: "Set a user's role in an environment (upsert)",
    params: envParams,
    body: () => z.object({ user_id: uuid(), role: z.enum(ENV_ROLES) }),
    responses: () => ({ 201: roleOut() }),
    refusals: [403, 404],
    handler: async ({ params, body }, ctx) => created(toEnvRoleOut(await assignEnvRole(ctx, { ...params, ...body }))),
  }),
  route({
    method: 'GET',
    path: '/environments/{environment_id}/roles',
    auth: 'user',
    summary: 'Role assignments of an environment',
    params: envParams,
    responses: () => ({ 200: z.array(roleOut()) }),
    refusals: [404],
    handler: async ({ params }, ctx) => ok(await listEnvRoles(ctx, params)),
  }),
  route({
    method: 'DELETE',
    path: '/environments/{environment_id}/roles/{user_id}',
    auth: 'user',
    summary: "Remove a user's role in an environment",
    params: () => z.object({ environment_id: uuid(), user_id: uuid() }),
    responses: () => ({ 204: null }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => {
      await removeEnvRole(ctx, params);
      return noContent();
    },
  }),
  route({
    method: 'POST',
    path: '/live/ticket',
    auth: 'user',
    summary:
      "A single-use, one-minute ticket to follow an environment's changes over the WebSocket: those after `since` when given, else after the ticket's issue (`since` in the answer)",
    body: () => z.object({ project_id: uuid(), environment_id: uuid(), since: z.int().nonnegative().optional() }),
    responses: () => ({
      200: z.object({ url: z.string(), ticket: z.string(), expires_in: z.int(), since: z.int().nonnegative() }),
    }),
    refusals: [400, 403, 404],
    handler: async ({ body }, ctx) => ok(await liveTicket(ctx, body)),
  }),
];
