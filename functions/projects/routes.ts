import { z } from 'zod';
import { route, ok, created, noContent } from '#http/route';
import { name, syncHeaders, updatedSince, uuid } from '#http/schemas';
import { loadAccess, createProject, deleteProject, listProjects, planOfProject, planTier, projectMembers, toProjectOut, updateProjectSettings, projectInventory, totals } from '#domain/tenancy';
import { projectUserRoutes } from './project-users-routes';
import { costRoutes } from './costs-routes';

const projectOut = z.object({
  id: z.uuid(), identifier: z.uuid(), name: z.string(), is_owner: z.boolean(), cost_calc_enabled: z.boolean(),
  updated_at: z.string(), deleted_at: z.string().nullable(),
});
const projectParams = z.object({ project_id: uuid });

export const projectRoutes = [
  route({
    method: 'GET', path: '/projects', auth: 'user', summary: "The caller's projects, owners first, then by name",
    query: z.object({ updated_since: updatedSince }),
    responses: { 200: z.array(projectOut) },
    handler: async ({ principal, query }, ctx) => {
      const rows = await listProjects(principal.account.id, query.updated_since);
      return ok(rows.map((r) => toProjectOut(r.project, r.isOwner)), { headers: syncHeaders(query.updated_since, ctx.clock.receivedAt) });
    },
  }),
  route({
    method: 'POST', path: '/projects', auth: 'user', summary: 'Create a project owned by the caller (staff may name another owner)',
    body: z.object({ name: name(), creator_user_id: uuid.nullish() }),
    responses: { 201: projectOut },
    handler: async ({ principal, body }, ctx) => {
      const { project, isOwner } = await createProject(principal.account, body, ctx);
      return created(toProjectOut(project, isOwner));
    },
  }),
  route({
    method: 'GET', path: '/projects/stats', auth: 'user', summary: 'Counts for every project the caller can reach',
    handler: async ({ principal }) => {
      const rows = await listProjects(principal.account.id);
      const stats = await Promise.all(
        rows.map(async ({ project }) => {
          const { environments, services, servers, groups } = totals(await projectInventory(project.id));
          return { project_id: project.id, environments, services, servers, groups };
        }),
      );
      return ok(stats);
    },
  }),
  route({
    method: 'GET', path: '/projects/members/{project_id}', auth: 'user', summary: 'Members of a project with their e-mail addresses',
    params: projectParams,
    handler: async ({ principal, params }) => {
      await loadAccess(params.project_id, principal.account.id);
      return ok(await projectMembers(params.project_id));
    },
  }),
  route({
    method: 'PATCH', path: '/projects/{project_id}/settings', auth: 'user', summary: 'Change project settings (cost calculation)',
    params: projectParams,
    body: z.object({ cost_calc_enabled: z.boolean() }),
    responses: { 200: projectOut },
    handler: async ({ principal, params, body }, ctx) => {
      const access = await loadAccess(params.project_id, principal.account.id);
      return ok(toProjectOut(await updateProjectSettings(access, body.cost_calc_enabled, ctx), access.isOwner));
    },
  }),
  route({
    method: 'GET', path: '/projects/{project_id}/plan', auth: 'user', summary: "The plan that governs a project's limits",
    params: projectParams,
    handler: async ({ principal, params }) => {
      const access = await loadAccess(params.project_id, principal.account.id);
      const plan = await planOfProject(access.project);
      return ok({ project_id: access.project.id, plan_name: plan.name, plan_tier: planTier(plan.name), is_owner: access.isOwner });
    },
  }),
  route({
    method: 'DELETE', path: '/projects/{project_id}', auth: 'user', summary: 'Soft-delete a project (owner)',
    params: projectParams,
    responses: { 204: null },
    handler: async ({ principal, params }, ctx) => {
      await deleteProject(await loadAccess(params.project_id, principal.account.id), ctx);
      return noContent();
    },
  }),
  ...projectUserRoutes,
  ...costRoutes,
];
