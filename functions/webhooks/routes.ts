import * as z from 'zod';
import { route, ok, created, noContent } from '#http/route';
import { uuid, integer } from '#http/schemas';
import {
  createWebhook,
  createWebhookBody,
  deleteWebhook,
  deliveryOut,
  deliverySummaryOut,
  getDelivery,
  getWebhook,
  listDeliveries,
  listWebhooks,
  pingWebhook,
  redeliver,
  rotateWebhookSecret,
  updateWebhook,
  updateWebhookBody,
  webhookOut,
  webhookView,
} from '#domain/webhooks';
import { lazySchema } from '#shared/lazy-schema';

const projectParams = lazySchema(() => z.object({ project_id: uuid() }));
const webhookParams = lazySchema(() => z.object({ project_id: uuid(), webhook_id: uuid() }));
const deliveryParams = lazySchema(() => webhookParams().extend({ delivery_id: uuid() }));
/** The registration answers: the webhook and its signing secret, shown this once. */
const withSecret = () => webhookOut().extend({ secret: z.string() });
const BASE = '/projects/{project_id}/webhooks';

export const webhooksRoutes = [
  route({
    method: 'POST',
    path: BASE,
    auth: 'user',
    summary: 'Register a webhook (Team plan and above); the signing secret is in this answer only',
    params: projectParams,
    body: createWebhookBody,
    responses: () => ({ 201: withSecret() }),
    refusals: [400, 403, 404],
    handler: async ({ params, body }, ctx) => {
      const { webhook, secret } = await createWebhook(ctx, { ...params, ...body });
      return created({ ...webhookView.project(webhook), secret });
    },
  }),
  route({
    method: 'GET',
    path: BASE,
    auth: 'user',
    summary: "A project's webhooks, oldest first",
    params: projectParams,
    responses: () => ({ 200: z.array(webhookOut()) }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => ok((await listWebhooks(ctx, params)).map((w) => webhookView.project(w))),
  }),
  route({
    method: 'GET',
    path: `${BASE}/{webhook_id}`,
    auth: 'user',
    summary: 'One webhook',
    params: webhookParams,
    responses: () => ({ 200: webhookOut() }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => ok(webhookView.project(await getWebhook(ctx, params))),
  }),
  route({
    method: 'PATCH',
    path: `${BASE}/{webhook_id}`,
    auth: 'user',
    summary: 'Change the URL, events, description or enabled',
    params: webhookParams,
    body: updateWebhookBody,
    responses: () => ({ 200: webhookOut() }),
    refusals: [400, 403, 404],
    handler: async ({ params, body }, ctx) => ok(webhookView.project(await updateWebhook(ctx, { ...params, ...body }))),
  }),
  route({
    method: 'DELETE',
    path: `${BASE}/{webhook_id}`,
    auth: 'user',
    summary: 'Delete a webhook',
    params: webhookParams,
    responses: () => ({ 204: null }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => {
      await deleteWebhook(ctx, params);
      return noContent();
    },
  }),
  route({
    method: 'POST',
    path: `${BASE}/{webhook_id}/test`,
    auth: 'user',
    summary: 'Send a signed ping now and answer what the endpoint said',
    params: webhookParams,
    responses: () => ({
      200: z.object({
        id: z.uuid(),
        success: z.boolean(),
        status_code: z.number().int().nullable(),
        duration_ms: z.number().int(),
        response_body: z.string(),
      }),
    }),
    refusals: [400, 403, 404],
    handler: async ({ params }, ctx) => ok(await pingWebhook(ctx, params)),
  }),
  route({
    method: 'POST',
    path: `${BASE}/{webhook_id}/rotate-secret`,
    auth: 'user',
    summary: 'A new signing secret (shown once); the previous one also signs for 24 hours',
    params: webhookParams,
    responses: () => ({ 200: withSecret() }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => {
      const { webhook, secret } = await rotateWebhookSecret(ctx, params);
      return ok({ ...webhookView.project(webhook), secret });
    },
  }),
  route({
    method: 'GET',
    path: `${BASE}/{webhook_id}/deliveries`,
    auth: 'user',
    summary: "A webhook's deliveries of the last 30 days, newest first",
    params: webhookParams,
    query: () =>
      z.object({
        status: z.enum(['pending', 'succeeded', 'failed']).optional(),
        limit: integer().min(1).max(100).default(50),
      }),
    responses: () => ({ 200: z.array(deliverySummaryOut()) }),
    refusals: [403, 404],
    handler: async ({ params, query }, ctx) => ok(await listDeliveries(ctx, { ...params, ...query })),
  }),
  route({
    method: 'GET',
    path: `${BASE}/{webhook_id}/deliveries/{delivery_id}`,
    auth: 'user',
    summary: 'One delivery: its payload and attempts',
    params: deliveryParams,
    responses: () => ({ 200: deliveryOut() }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => ok(await getDelivery(ctx, params)),
  }),
  route({
    method: 'POST',
    path: `${BASE}/{webhook_id}/deliveries/{delivery_id}/redeliver`,
    auth: 'user',
    summary: 'Send a delivery again now (same body and webhook-id)',
    params: deliveryParams,
    responses: () => ({ 200: deliveryOut() }),
    refusals: [400, 403, 404],
    handler: async ({ params }, ctx) => ok(await redeliver(ctx, params)),
  }),
];
