import * as z from 'zod';
import { route, ok } from '#http/route';
import { uuid, integer } from '#http/schemas';
import {
  startExport,
  startImport,
  importUploadUrl,
  importExportHistory,
  downloadExport,
  jobStatus,
  cancelJob,
  progressTicket,
  documentJsonSchema,
  exampleDocument,
  impexRecordView,
} from '#domain/impex';
import { config } from '#shared/config';
import { lazySchema } from '#shared/lazy-schema';

const target = () => ({ project_id: uuid(), environment_id: uuid() });
const started = lazySchema(() =>
  z.object({ status: z.enum(['queued', 'failed']), job_id: z.uuid(), record_id: z.uuid() }),
);
const uploadedFile = lazySchema(() =>
  z.object(
    { filename: z.string().max(255), content_type: z.string().max(255), text: z.string() },
    { error: 'A configuration document file is required' },
  ),
);
/** The document travels as a multipart file; its size limit is the configuration's. */
const multipart = {
  get maxFileBytes() {
    return config().IMPEX_MAX_DOCUMENT_BYTES;
  },
};

export const impexRoutes = [
  route({
    method: 'POST',
    path: '/impex/export',
    auth: 'user',
    summary: 'Export an environment as a configuration document (asynchronous; multipart form fields)',
    multipart,
    body: () => z.object(target()),
    responses: () => ({ 202: started() }),
    refusals: [400, 403, 404],
    handler: async ({ body }, ctx) => ({ status: 202, body: await startExport(ctx, body) }),
  }),
  route({
    method: 'POST',
    path: '/impex/import',
    auth: 'user',
    summary: 'Import a configuration document into an environment (asynchronous; `dry_run=true` only plans)',
    multipart,
    body: () =>
      z
        .object({
          ...target(),
          file: uploadedFile().optional(),
          upload_id: uuid().optional(),
          filename: z
            .string()
            .max(255)
            .optional()
            .describe(
              "The uploaded document's name, for its record (with upload_id; a multipart file carries its own)",
            ),
          dry_run: z.enum(['true', 'false']).optional(),
          plan_fingerprint: z
            .string()
            .max(100)
            .optional()
            .describe(
              "A saved plan's `report.fingerprint`: the import writes nothing (fails) when the environment changed since that plan",
            ),
          prune: z
            .enum(['true', 'false'])
            .optional()
            .describe(
              "Also delete what the environment has and the document lacks (the plan's `report.extras`), in the import's job under its lock, with the ordinary delete rules",
            ),
        })
        .refine((b) => b.file || b.upload_id, { message: 'A configuration document file is required', path: ['file'] })
        .refine((b) => !(b.file && b.upload_id), {
          message: 'Give the file or an upload_id, not both',
          path: ['upload_id'],
        }),
    responses: () => ({ 202: started() }),
    refusals: [400, 403, 404, 409],
    handler: async ({ body }, ctx) => ({
      status: 202,
      body: await startImport(ctx, { ...body, dry_run: body.dry_run === 'true', prune: body.prune === 'true' }),
    }),
  }),
  route({
    method: 'POST',
    path: '/impex/upload-url',
    auth: 'user',
    summary:
      'A presigned URL to PUT a document too big for a request (its size and type fixed), then POST /impex/import with its upload_id',
    body: () =>
      z.object({
        ...target(),
        size: z
          .number()
          .int()
          .min(1)
          .refine((n) => n <= config().IMPEX_MAX_UPLOAD_BYTES, {
            message: 'The document is larger than an import takes (IMPEX_MAX_UPLOAD_BYTES)',
          }),
        content_type: z.enum(['application/yaml', 'application/json', 'text/yaml']).default('application/yaml'),
      }),
    responses: () => ({
      201: z.object({
        upload_id: z.uuid(),
        method: z.literal('PUT'),
        url: z.string(),
        headers: z.record(z.string(), z.string()),
        expires_at: z.string(),
      }),
    }),
    refusals: [400, 403, 404],
    handler: async ({ body }, ctx) => ({ status: 201, body: await importUploadUrl(ctx, body) }),
  }),
  route({
    method: 'GET',
    path: '/impex/history',
    auth: 'user',
    summary: "A project's export and import records, newest first",
    query: () =>
      z.object({ project_id: uuid(), environment_id: uuid().optional(), limit: integer().min(1).max(200).default(50) }),
    responses: () => ({ 200: z.array(impexRecordView.schema) }),
    refusals: [403, 404],
    handler: async ({ query }, ctx) => ok(await importExportHistory(ctx, query)),
  }),
  route({
    method: 'GET',
    path: '/impex/download/{record_id}',
    auth: 'public',
    summary:
      "An export's document through its signed link: a redirect to a fresh S3 presigned URL (403 tampered, 410 'Link expired')",
    params: () => z.object({ record_id: z.string().max(100) }),
    query: () => z.object({ exp: integer(), sig: z.string().max(200) }),
    responses: () => ({ 302: null }),
    refusals: [403, 404, 410],
    handler: async ({ params, query }, ctx) => ({
      status: 302,
      headers: {
        location: await downloadExport(ctx, { record_id: params.record_id, ...query }),
        'cache-control': 'no-store',
      },
    }),
  }),
  route({
    method: 'GET',
    path: '/impex/example',
    auth: 'user',
    summary: 'A specimen configuration document (valid against GET /impex/schema)',
    handler: async () => ok(exampleDocument()),
  }),
  route({
    method: 'GET',
    path: '/impex/schema',
    auth: 'public',
    summary: 'The JSON Schema of configuration documents (for editors and CI checks)',
    handler: async () =>
      ok(documentJsonSchema(), {
        headers: { 'content-type': 'application/schema+json', 'cache-control': 'public, max-age=3600' },
      }),
  }),
  route({
    method: 'GET',
    path: '/impex/status/{job_id}',
    auth: 'user',
    summary:
      "A job's record; the access token as Bearer header or, for clients that cannot send headers, as `token` query parameter",
    tokenInQuery: true,
    params: () => z.object({ job_id: z.string().max(100) }),
    responses: () => ({ 200: impexRecordView.schema }),
    refusals: [404],
    handler: async ({ params }, ctx) => ok(await jobStatus(ctx, { job_id: params.job_id })),
  }),
  route({
    method: 'POST',
    path: '/impex/cancel/{job_id}',
    auth: 'user',
    summary:
      'Cancel a job (its starter or a project owner): a queued one at once; a running import stops at its next chunk boundary, its partial chunk undone, and its record ends `cancelled`',
    params: () => z.object({ job_id: z.string().max(100) }),
    responses: () => ({ 202: impexRecordView.schema }),
    refusals: [403, 404, 409],
    handler: async ({ params }, ctx) => ({ status: 202, body: await cancelJob(ctx, { job_id: params.job_id }) }),
  }),
  route({
    method: 'POST',
    path: '/impex/progress-ticket',
    auth: 'user',
    summary: "A single-use, one-minute ticket to follow a job's progress over the WebSocket",
    body: () => z.object({ job_id: z.string().max(100) }),
    responses: () => ({ 200: z.object({ ticket: z.string(), url: z.string(), expires_in: z.int() }) }),
    refusals: [404],
    handler: async ({ body }, ctx) => ok(await progressTicket(ctx, body)),
  }),
];
