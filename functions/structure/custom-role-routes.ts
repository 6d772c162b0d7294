import * as z from 'zod';
import { route, ok, created, noContent } from '#http/route';
import { name, syncHeaders, text, updatedSince, uuid } from '#http/schemas';
import { PERMISSIONS } from '#auth/permissions';
import {
  assignCustomRole,
  createCustomRole,
  deleteCustomRole,
  listAssignments,
  listCustomRoles,
  removeAssignment,
  toAssignmentOut,
  toCustomRoleOut,
  updateCustomRole,
} from '#domain/tenancy';
import { lazySchema } from '#shared/lazy-schema';

/** Keys from the one catalogue (shared/auth/permissions.ts); anything else is a 422, and so is a list longer than the catalogue. */
const permissions = lazySchema(() => z.array(z.enum(PERMISSIONS)).min(1).max(PERMISSIONS.length));
const description = lazySchema(() => text(2000));
const roleOut = lazySchema(() =>
  z.object({
    id: z.uuid(),
    project_id: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    permissions: z.array(z.enum(PERMISSIONS)),
    updated_at: z.string(),
    deleted_at: z.string().nullable(),
  }),
);
const assignmentOut = lazySchema(() =>
  z.object({
    id: z.uuid(),
    role_id: z.uuid(),
    project_id: z.uuid(),
    user_id: z.uuid(),
    environment_id: z.uuid().nullable(),
    updated_at: z.string(),
    deleted_at: z.string().nullable(),
  }),
);
const projectParams = lazySchema(() => z.object({ project_id: uuid() }));
const roleParams = lazySchema(() => z.object({ project_id: uuid(), role_id: uuid() }));

export const customRoleRoutes = [
  route({
    method: 'GET',
    path: '/projects/{project_id}/custom-roles',
    auth: 'user',
    summary: "A project's custom roles (any member)",
    params: projectParams,
    query: () => z.object({ updated_since: updatedSince() }),
    responses: () => ({ 200: z.array(roleOut()) }),
    refusals: [404],
    handler: async ({ params, query }, ctx) => {
      const roles = await listCustomRoles(ctx, { ...params, ...query });
      return ok(roles.map(toCustomRoleOut), { headers: syncHeaders(query.updated_since, ctx.clock.receivedAt) });
    },
  }),
  route({
    method: 'POST',
    path: '/projects/{project_id}/custom-roles',
    auth: 'user',
    summary: 'Create a custom role: a named set of permission keys (owner; plan limit)',
    params: projectParams,
    body: () => z.object({ name: name(), description: description(), permissions: permissions() }),
    responses: () => ({ 201: roleOut() }),
    refusals: [400, 403, 404],
    handler: async ({ params, body }, ctx) =>
      created(toCustomRoleOut(await createCustomRole(ctx, { ...params, ...body }))),
  }),
  route({
    method: 'PATCH',
    path: '/projects/{project_id}/custom-roles/{role_id}',
    auth: 'user',
    summary: "Change a custom role's name, description or permissions (owner)",
    params: roleParams,
    body: () =>
      z
        .object({ name: name().optional(), description: description(), permissions: permissions().optional() })
        .refine((b) => b.name !== undefined || b.description !== undefined || b.permissions !== undefined, {
          message: 'At least one of name, description, permissions is required',
        }),
    responses: () => ({ 200: roleOut() }),
    refusals: [400, 403, 404],
    handler: async ({ params, body }, ctx) =>
      ok(toCustomRoleOut(await updateCustomRole(ctx, { project_id: params.project_id, id: params.role_id, ...body }))),
  }),
  route({
    method: 'DELETE',
    path: '/projects/{project_id}/custom-roles/{role_id}',
    auth: 'user',
    summary: 'Soft-delete a custom role and withdraw its assignments (owner)',
    params: roleParams,
    responses: () => ({ 204: null }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => {
      await deleteCustomRole(ctx, { project_id: params.project_id, id: params.role_id });
      return noContent();
    },
  }),
  route({
    method: 'GET',
    path: '/projects/{project_id}/custom-roles/{role_id}/assignments',
    auth: 'user',
    summary: 'Who holds a custom role, and where (any member)',
    params: roleParams,
    query: () => z.object({ updated_since: updatedSince() }),
    responses: () => ({ 200: z.array(assignmentOut()) }),
    refusals: [404],
    handler: async ({ params, query }, ctx) => {
      const assignments = await listAssignments(ctx, { ...params, ...query });
      return ok(assignments.map(toAssignmentOut), { headers: syncHeaders(query.updated_since, ctx.clock.receivedAt) });
    },
  }),
  route({
    method: 'POST',
    path: '/projects/{project_id}/custom-roles/{role_id}/assignments',
    auth: 'user',
    summary: 'Give a user a custom role, project-wide or in one environment (owner; upsert per user)',
    params: roleParams,
    body: () => z.object({ user_id: uuid(), environment_id: uuid().nullish() }),
    responses: () => ({ 201: assignmentOut() }),
    refusals: [400, 403, 404],
    handler: async ({ params, body }, ctx) =>
      created(toAssignmentOut(await assignCustomRole(ctx, { ...params, ...body }))),
  }),
  route({
    method: 'DELETE',
    path: '/projects/{project_id}/custom-roles/{role_id}/assignments/{user_id}',
    auth: 'user',
    summary: "Withdraw a user's custom role (owner)",
    params: () => z.object({ project_id: uuid(), role_id: uuid(), user_id: uuid() }),
    responses: () => ({ 204: null }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => {
      await removeAssignment(ctx, params);
      return noContent();
    },
  }),
];
