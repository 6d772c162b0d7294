import { z } from 'zod';
import { route, ok, created, noContent } from '#http/route';
import { name, syncHeaders, updatedSince, uuid } from '#http/schemas';
import { forbidden } from '#shared/errors';
import { ENV_ROLES } from '#auth/permissions';
import { loadAccess, accessToEnvironment, createEnvironment, deleteEnvironment, listEnvironments, renameEnvironment, toEnvironmentOut, assignEnvRole, envRoleTargetKeys, listEnvRoles, removeEnvRole, toEnvRoleOut, projectInventory } from '#domain/tenancy';

const environmentOut = z.object({ id: z.uuid(), name: z.string(), project_id: z.uuid(), updated_at: z.string(), deleted_at: z.string().nullable() });
const roleOut = z.object({ id: z.uuid(), environment_id: z.uuid(), user_id: z.uuid(), role: z.enum(ENV_ROLES) });
const envParams = z.object({ environment_id: uuid });
const NOT_AUTHORIZED_TO_VIEW = 'Not authorized to view environments for this project';

/** GET /environments answers non-members 403 rather than 404 (SPEC general rule 4). */
const memberAccess = (projectId: string, userId: string) => loadAccess(projectId, userId, { notFoundError: forbidden(NOT_AUTHORIZED_TO_VIEW) });

export const environmentRoutes = [
  route({
    method: 'GET', path: '/environments', auth: 'user', summary: "A project's environments (archived excluded)",
    query: z.object({ project_id: uuid, updated_since: updatedSince }),
    responses: { 200: z.array(environmentOut) },
    handler: async ({ principal, query }, ctx) => {
      await memberAccess(query.project_id, principal.account.id);
      const envs = await listEnvironments(query.project_id, query.updated_since);
      return ok(envs.map(toEnvironmentOut), { headers: syncHeaders(query.updated_since, ctx.clock.receivedAt) });
    },
  }),
  route({
    method: 'POST', path: '/environments', auth: 'user', summary: 'Create an environment (within the plan limit)',
    body: z.object({ name: name(), project_id: uuid }),
    responses: { 201: environmentOut },
    handler: async ({ principal, body }, ctx) => {
      const access = await loadAccess(body.project_id, principal.account.id);
      return created(toEnvironmentOut(await createEnvironment(access, body.name, ctx)));
    },
  }),
  route({
    method: 'GET', path: '/environments/stats', auth: 'user', summary: 'Counts per environment of a project',
    query: z.object({ project_id: uuid }),
    handler: async ({ principal, query }) => {
      await memberAccess(query.project_id, principal.account.id);
      const perEnv = await projectInventory(query.project_id);
      return ok([...perEnv].map(([environment_id, c]) => ({ environment_id, name: c.name, services: c.services, servers: c.servers, groups: c.groups, networks: c.networks })));
    },
  }),
  route({
    method: 'PATCH', path: '/environments/{environment_id}', auth: 'user', summary: 'Rename an environment',
    params: envParams,
    body: z.object({ name: name() }),
    responses: { 200: environmentOut },
    handler: async ({ principal, params, body }, ctx) => {
      const { access, env } = await accessToEnvironment(params.environment_id, principal.account.id);
      return ok(toEnvironmentOut(await renameEnvironment(access, env, body.name, ctx)));
    },
  }),
  route({
    method: 'DELETE', path: '/environments/{environment_id}', auth: 'user', summary: 'Soft-delete an environment and what it holds',
    params: envParams,
    responses: { 204: null },
    handler: async ({ principal, params }, ctx) => {
      const { access, env } = await accessToEnvironment(params.environment_id, principal.account.id);
      await deleteEnvironment(access, env, ctx);
      return noContent();
    },
  }),
  route({
    method: 'POST', path: '/environments/{environment_id}/roles', auth: 'user', summary: "Set a user's role in an environment (upsert)",
    params: envParams,
    body: z.object({ user_id: uuid, role: z.enum(ENV_ROLES) }),
    responses: { 201: roleOut },
    handler: async ({ principal, params, body }, ctx) => {
      const target = (projectId: string) => envRoleTargetKeys(projectId, params.environment_id, body.user_id);
      const { access, env } = await accessToEnvironment(params.environment_id, principal.account.id, undefined, target);
      return created(toEnvRoleOut(await assignEnvRole(access, env, body.user_id, body.role, ctx)));
    },
  }),
  route({
    method: 'GET', path: '/environments/{environment_id}/roles', auth: 'user', summary: 'Role assignments of an environment',
    params: envParams,
    responses: { 200: z.array(roleOut) },
    handler: async ({ principal, params }) => {
      const { env } = await accessToEnvironment(params.environment_id, principal.account.id);
      return ok(await listEnvRoles(env.project_id, env.id));
    },
  }),
  route({
    method: 'DELETE', path: '/environments/{environment_id}/roles/{user_id}', auth: 'user', summary: "Remove a user's role in an environment",
    params: z.object({ environment_id: uuid, user_id: uuid }),
    responses: { 204: null },
    handler: async ({ principal, params }) => {
      const { access, env } = await accessToEnvironment(params.environment_id, principal.account.id);
      await removeEnvRole(access, env, params.user_id);
      return noContent();
    },
  }),
];
