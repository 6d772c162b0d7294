import * as z from 'zod';
import { route, ok, created, noContent } from '#http/route';
import { email, name, syncHeaders, text, updatedSince, uuid } from '#http/schemas';
import {
  createProjectUser,
  getProjectUser,
  listProjectUsers,
  projectUserView,
  updateProjectUser,
} from '#domain/tenancy';
import { deleteProjectUserAndReferences } from '#domain/catalog';
import { lazySchema } from '#shared/lazy-schema';

/** Optional contact fields: a value sets, null clears, absent leaves as is. */
const fields = () => ({ email: email().nullish(), job_title: text(200), phone: text(50), notes: text(5000) });
const projectUserOut = () => projectUserView.schema;
const idParams = lazySchema(() => z.object({ project_user_id: uuid() }));

/** /project-users: project-local people (no login needed), e.g. the one responsible for a service. */
export const projectUserRoutes = [
  route({
    method: 'GET',
    path: '/project-users',
    auth: 'user',
    summary: "A project's people, by name",
    query: () => z.object({ project_id: uuid(), updated_since: updatedSince() }),
    responses: () => ({ 200: z.array(projectUserOut()) }),
    refusals: [403, 404],
    handler: async ({ query }, ctx) => {
      const people = await listProjectUsers(ctx, query);
      return ok(
        people.map((u) => projectUserView.project(u)),
        { headers: syncHeaders(query.updated_since, ctx.clock.receivedAt) },
      );
    },
  }),
  route({
    method: 'POST',
    path: '/project-users',
    auth: 'user',
    summary: 'Add a person to a project (within the plan limit)',
    body: () => z.object({ project_id: uuid(), name: name(), ...fields() }),
    responses: () => ({ 201: projectUserOut() }),
    refusals: [403, 404],
    handler: async ({ body }, ctx) => created(projectUserView.project(await createProjectUser(ctx, body))),
  }),
  route({
    method: 'GET',
    path: '/project-users/{project_user_id}',
    auth: 'user',
    summary: 'One person of a project',
    params: idParams,
    responses: () => ({ 200: projectUserOut() }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) =>
      ok(projectUserView.project(await getProjectUser(ctx, { id: params.project_user_id }))),
  }),
  route({
    method: 'PATCH',
    path: '/project-users/{project_user_id}',
    auth: 'user',
    summary: "Change a person's details",
    params: idParams,
    body: () =>
      z
        .object({ name: name().optional(), ...fields() })
        .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'At least one field is required' }),
    responses: () => ({ 200: projectUserOut() }),
    refusals: [403, 404],
    handler: async ({ params, body }, ctx) =>
      ok(projectUserView.project(await updateProjectUser(ctx, { id: params.project_user_id, ...body }))),
  }),
  route({
    method: 'DELETE',
    path: '/project-users/{project_user_id}',
    auth: 'user',
    summary: 'Soft-delete a person (frees the plan slot)',
    params: idParams,
    responses: () => ({ 204: null }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => {
      await deleteProjectUserAndReferences(ctx, { id: params.project_user_id });
      return noContent();
    },
  }),
];
