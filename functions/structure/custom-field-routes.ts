import * as z from 'zod';
import { route, ok, created } from '#http/route';
import { uuid } from '#http/schemas';
import {
  CUSTOM_FIELD_KEY,
  createCustomField,
  createCustomFieldBody,
  customFieldJobView,
  customFieldView,
  deleteCustomField,
  getCustomFieldJob,
  listCustomFields,
  updateCustomField,
  updateCustomFieldBody,
} from '#domain/catalog';
import { lazySchema } from '#shared/lazy-schema';

const projectParams = lazySchema(() => z.object({ project_id: uuid() }));
const fieldParams = lazySchema(() => z.object({ project_id: uuid(), key: z.string().regex(CUSTOM_FIELD_KEY) }));

/** A project's custom field definitions (the values are the items' `custom_fields`). */
export const customFieldRoutes = [
  route({
    method: 'GET',
    path: '/projects/{project_id}/custom-fields',
    auth: 'user',
    summary: "A project's custom field definitions, by key (any member)",
    params: projectParams,
    responses: () => ({ 200: z.array(customFieldView.schema) }),
    refusals: [404],
    handler: async ({ params }, ctx) =>
      ok((await listCustomFields(ctx, params)).map((d) => customFieldView.project(d))),
  }),
  route({
    method: 'POST',
    path: '/projects/{project_id}/custom-fields',
    auth: 'user',
    summary:
      'Define a custom field for services, service floors and/or networks (owner or project.manage; at most 50; 409 with `count` when items would break)',
    params: projectParams,
    body: createCustomFieldBody,
    responses: () => ({ 201: customFieldView.schema }),
    refusals: [403, 404, 409],
    handler: async ({ params, body }, ctx) =>
      created(customFieldView.project(await createCustomField(ctx, { ...params, ...body }))),
  }),
  route({
    method: 'PATCH',
    path: '/projects/{project_id}/custom-fields/{key}',
    auth: 'user',
    summary:
      "Change a custom field's definition (owner or project.manage); a change existing values would break is 409 with their `count`",
    params: fieldParams,
    body: updateCustomFieldBody,
    responses: () => ({ 200: customFieldView.schema }),
    refusals: [403, 404, 409],
    handler: async ({ params, body }, ctx) =>
      ok(customFieldView.project(await updateCustomField(ctx, { ...params, ...body }))),
  }),
  route({
    method: 'DELETE',
    path: '/projects/{project_id}/custom-fields/{key}',
    auth: 'user',
    summary:
      'Delete a custom field: a job takes its value off every item, then removes it (owner or project.manage); 202 with the job',
    params: fieldParams,
    responses: () => ({ 202: customFieldJobView.schema }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => ({
      status: 202,
      body: customFieldJobView.project(await deleteCustomField(ctx, params)),
    }),
  }),
  route({
    method: 'GET',
    path: '/projects/{project_id}/custom-fields/jobs/{job_id}',
    auth: 'user',
    summary: "A custom field deletion job's record (any member)",
    params: () => z.object({ project_id: uuid(), job_id: uuid() }),
    responses: () => ({ 200: customFieldJobView.schema }),
    refusals: [404],
    handler: async ({ params }, ctx) => ok(customFieldJobView.project(await getCustomFieldJob(ctx, params))),
  }),
];
