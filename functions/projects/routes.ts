import * as z from 'zod';
import { route, ok, created, noContent } from '#http/route';
import { name, syncHeaders, updatedSince, uuid } from '#http/schemas';
import {
  createProject,
  deleteProject,
  listProjects,
  projectMembers,
  projectPlan,
  projectStats,
  toProjectOut,
  updateProjectSettings,
} from '#domain/tenancy';
import { removeMemberAndReferences } from '#domain/catalog';
import { projectUserRoutes } from './project-users-routes.ts';
import { costRoutes } from './costs-routes.ts';
import { ssoConnectionRoutes } from './sso-routes.ts';
import { lazySchema } from '#shared/lazy-schema';

const projectOut = lazySchema(() =>
  z.object({
    id: z.uuid(),
    identifier: z.uuid(),
    name: z.string(),
    is_owner: z.boolean(),
    cost_calc_enabled: z.boolean(),
    updated_at: z.string(),
    deleted_at: z.string().nullable(),
  }),
);
const projectParams = lazySchema(() => z.object({ project_id: uuid() }));

export const projectRoutes = [
  route({
    method: 'GET',
    path: '/projects',
    auth: 'user',
    summary: "The caller's projects, owners first, then by name",
    query: () => z.object({ updated_since: updatedSince() }),
    responses: () => ({ 200: z.array(projectOut()) }),
    handler: async ({ query }, ctx) => {
      const rows = await listProjects(ctx, query);
      return ok(
        rows.map((r) => toProjectOut(r.project, r.isOwner)),
        { headers: syncHeaders(query.updated_since, ctx.clock.receivedAt) },
      );
    },
  }),
  route({
    method: 'POST',
    path: '/projects',
    auth: 'user',
    summary: 'Create a project owned by the caller (staff may name another owner)',
    body: () => z.object({ name: name(), creator_user_id: uuid().nullish() }),
    responses: () => ({ 201: projectOut() }),
    refusals: [400, 403, 404],
    handler: async ({ body }, ctx) => {
      const { project, isOwner } = await createProject(ctx, body);
      return created(toProjectOut(project, isOwner));
    },
  }),
  route({
    method: 'GET',
    path: '/projects/stats',
    auth: 'user',
    summary: 'Counts for every project the caller can reach',
    responses: () => ({
      200: z.array(
        z.object({ project_id: z.uuid(), environments: z.int(), services: z.int(), servers: z.int(), groups: z.int() }),
      ),
    }),
    handler: async (_req, ctx) => ok(await projectStats(ctx)),
  }),
  route({
    method: 'GET',
    path: '/projects/members/{project_id}',
    auth: 'user',
    summary: 'Members of a project with their e-mail addresses',
    params: projectParams,
    responses: () => ({ 200: z.array(z.object({ user_id: z.uuid(), email: z.string() })) }),
    refusals: [404],
    handler: async ({ params }, ctx) => ok(await projectMembers(ctx, { id: params.project_id })),
  }),
  route({
    method: 'DELETE',
    path: '/projects/{project_id}/members/{user_id}',
    auth: 'user',
    summary:
      'End a membership (an owner removes a member; any member may leave): their roles in the project go with it, what they created stays',
    params: () => z.object({ project_id: uuid(), user_id: uuid() }),
    responses: () => ({ 204: null }),
    refusals: [400, 403, 404],
    handler: async ({ params }, ctx) => {
      await removeMemberAndReferences(ctx, params);
      return noContent();
    },
  }),
  route({
    method: 'PATCH',
    path: '/projects/{project_id}/settings',
    auth: 'user',
    summary: 'Change project settings (cost calculation)',
    params: projectParams,
    body: () => z.object({ cost_calc_enabled: z.boolean() }),
    responses: () => ({ 200: projectOut() }),
    refusals: [403, 404],
    handler: async ({ params, body }, ctx) => {
      const { project, isOwner } = await updateProjectSettings(ctx, { id: params.project_id, ...body });
      return ok(toProjectOut(project, isOwner));
    },
  }),
  route({
    method: 'GET',
    path: '/projects/{project_id}/plan',
    auth: 'user',
    summary: "The plan that governs a project's limits",
    params: projectParams,
    responses: () => ({
      200: z.object({ project_id: z.uuid(), plan_name: z.string(), plan_tier: z.string(), is_owner: z.boolean() }),
    }),
    refusals: [404],
    handler: async ({ params }, ctx) => ok(await projectPlan(ctx, { id: params.project_id })),
  }),
  route({
    method: 'DELETE',
    path: '/projects/{project_id}',
    auth: 'user',
    summary: 'Soft-delete a project (owner)',
    params: projectParams,
    responses: () => ({ 204: null }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => {
      await deleteProject(ctx, { id: params.project_id });
      return noContent();
    },
  }),
  ...projectUserRoutes,
  ...costRoutes,
  ...ssoConnectionRoutes,
];
