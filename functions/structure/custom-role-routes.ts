import { z } from 'zod';
import { route, ok, created, noContent } from '#http/route';
import { name, syncHeaders, text, updatedSince, uuid } from '#http/schemas';
import { PERMISSIONS } from '#auth/permissions';
import { accessWithCustomRole, loadAccess, assignCustomRole, assignmentReadKeys, createCustomRole, deleteCustomRole, listAssignments, listCustomRoles, removeAssignment, roleFrom, toAssignmentOut, toCustomRoleOut, updateCustomRole } from '#domain/tenancy';

/** Keys from the one catalogue (shared/auth/permissions.ts); anything else is a 422. */
const permissions = z.array(z.enum(PERMISSIONS)).min(1);
const description = text(2000);
const roleOut = z.object({
  id: z.uuid(), project_id: z.uuid(), name: z.string(), description: z.string().nullable(), permissions: z.array(z.enum(PERMISSIONS)),
  updated_at: z.string(), deleted_at: z.string().nullable(),
});
const assignmentOut = z.object({
  id: z.uuid(), role_id: z.uuid(), project_id: z.uuid(), user_id: z.uuid(), environment_id: z.uuid().nullable(), updated_at: z.string(), deleted_at: z.string().nullable(),
});
const projectParams = z.object({ project_id: uuid });
const roleParams = z.object({ project_id: uuid, role_id: uuid });

export const customRoleRoutes = [
  route({
    method: 'GET', path: '/projects/{project_id}/custom-roles', auth: 'user', summary: "A project's custom roles (any member)",
    params: projectParams,
    query: z.object({ updated_since: updatedSince }),
    responses: { 200: z.array(roleOut) },
    handler: async ({ principal, params, query }, ctx) => {
      await loadAccess(params.project_id, principal.account.id);
      const roles = await listCustomRoles(params.project_id, query.updated_since);
      return ok(roles.map(toCustomRoleOut), { headers: syncHeaders(query.updated_since, ctx.clock.receivedAt) });
    },
  }),
  route({
    method: 'POST', path: '/projects/{project_id}/custom-roles', auth: 'user', summary: 'Create a custom role: a named set of permission keys (owner; plan limit)',
    params: projectParams,
    body: z.object({ name: name(), description, permissions }),
    responses: { 201: roleOut },
    handler: async ({ principal, params, body }, ctx) => {
      const access = await loadAccess(params.project_id, principal.account.id);
      return created(toCustomRoleOut(await createCustomRole(access, body, ctx)));
    },
  }),
  route({
    method: 'PATCH', path: '/projects/{project_id}/custom-roles/{role_id}', auth: 'user', summary: "Change a custom role's name, description or permissions (owner)",
    params: roleParams,
    body: z
      .object({ name: name().optional(), description, permissions: permissions.optional() })
      .refine((b) => b.name !== undefined || b.description !== undefined || b.permissions !== undefined, {
        message: 'At least one of name, description, permissions is required',
      }),
    responses: { 200: roleOut },
    handler: async ({ principal, params, body }, ctx) => {
      const access = await accessWithCustomRole(params.project_id, principal.account.id, params.role_id);
      return ok(toCustomRoleOut(await updateCustomRole(access, params.role_id, body, ctx)));
    },
  }),
  route({
    method: 'DELETE', path: '/projects/{project_id}/custom-roles/{role_id}', auth: 'user', summary: 'Soft-delete a custom role and withdraw its assignments (owner)',
    params: roleParams,
    responses: { 204: null },
    handler: async ({ principal, params }, ctx) => {
      const access = await accessWithCustomRole(params.project_id, principal.account.id, params.role_id);
      await deleteCustomRole(access, params.role_id, ctx);
      return noContent();
    },
  }),
  route({
    method: 'GET', path: '/projects/{project_id}/custom-roles/{role_id}/assignments', auth: 'user', summary: "Who holds a custom role, and where (any member)",
    params: roleParams,
    query: z.object({ updated_since: updatedSince }),
    responses: { 200: z.array(assignmentOut) },
    handler: async ({ principal, params, query }, ctx) => {
      const access = await accessWithCustomRole(params.project_id, principal.account.id, params.role_id);
      roleFrom(access, params.role_id);
      const assignments = await listAssignments(params.project_id, params.role_id, query.updated_since);
      return ok(assignments.map(toAssignmentOut), { headers: syncHeaders(query.updated_since, ctx.clock.receivedAt) });
    },
  }),
  route({
    method: 'POST', path: '/projects/{project_id}/custom-roles/{role_id}/assignments', auth: 'user',
    summary: 'Give a user a custom role, project-wide or in one environment (owner; upsert per user)',
    params: roleParams,
    body: z.object({ user_id: uuid, environment_id: uuid.nullish() }),
    responses: { 201: assignmentOut },
    handler: async ({ principal, params, body }, ctx) => {
      const envId = body.environment_id ?? null;
      const access = await loadAccess(params.project_id, principal.account.id, { extra: assignmentReadKeys(params.project_id, params.role_id, body.user_id, envId) });
      return created(toAssignmentOut(await assignCustomRole(access, params.role_id, body.user_id, envId, ctx)));
    },
  }),
  route({
    method: 'DELETE', path: '/projects/{project_id}/custom-roles/{role_id}/assignments/{user_id}', auth: 'user', summary: "Withdraw a user's custom role (owner)",
    params: z.object({ project_id: uuid, role_id: uuid, user_id: uuid }),
    responses: { 204: null },
    handler: async ({ principal, params }, ctx) => {
      const access = await loadAccess(params.project_id, principal.account.id, { extra: assignmentReadKeys(params.project_id, params.role_id, params.user_id) });
      await removeAssignment(access, params.role_id, params.user_id, ctx);
      return noContent();
    },
  }),
];
