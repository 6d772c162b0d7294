import * as z from 'zod';
import { lazySchema } from '#shared/lazy-schema';
import { keys } from '#db/keys';
import { getItem } from '#db/items';
import { queryPartition } from '#db/query';
import { invalid, notFound } from '#shared/errors';
import type { AppContext } from '#shared/context';
import { webhookEntity, type Webhook } from './webhook-entity.ts';
import { WEBHOOK_NOT_FOUND, webhookAccess } from './webhooks.ts';
import { attempt, type Attempt, type Delivery } from './delivery.ts';
import { sendSigned } from './signed-post.ts';

/** The delivery log (30 days) and the manual actions on it: redeliver, and a ping. */

export const DELIVERY_NOT_FOUND = 'Delivery not found';
export const WEBHOOK_DISABLED = 'The webhook is disabled; enable it first';

export const attemptOut = lazySchema(() =>
  z.object({
    at: z.string(),
    status_code: z.number().int().nullable(),
    duration_ms: z.number().int(),
    response_body: z.string(),
    trigger: z.enum(['event', 'retry', 'redeliver']),
  }),
);
export const deliverySummaryOut = lazySchema(() =>
  z.object({
    id: z.uuid(),
    webhook_id: z.uuid(),
    event_type: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempt_count: z.number().int(),
    last_status_code: z.number().int().nullable(),
    next_attempt_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  }),
);
export const deliveryOut = lazySchema(() =>
  deliverySummaryOut().extend({ payload: z.unknown(), attempts: z.array(attemptOut()) }),
);
export type DeliverySummaryOut = z.infer<ReturnType<typeof deliverySummaryOut>>;

export const summary = (d: Delivery): DeliverySummaryOut => ({
  id: d.id,
  webhook_id: d.webhook_id,
  event_type: d.event_type,
  status: d.status,
  attempt_count: d.attempts.length,
  last_status_code: d.attempts.at(-1)?.status_code ?? null,
  next_attempt_at: d.next_attempt_at,
  created_at: d.created_at,
  updated_at: d.updated_at,
});
export const detail = (d: Delivery) => ({
  ...summary(d),
  payload: JSON.parse(d.body) as unknown,
  attempts: d.attempts.map((a: Attempt) => ({
    at: a.at,
    status_code: a.status_code,
    duration_ms: a.duration_ms,
    response_body: a.response_body,
    trigger: a.trigger,
  })),
});

async function webhookOf(ctx: AppContext, projectId: string, webhookId: string): Promise<Webhook> {
  await webhookAccess(ctx, projectId);
  const item = await getItem(keys.webhook(projectId, webhookId));
  if (!item) throw notFound(WEBHOOK_NOT_FOUND);
  return webhookEntity.decode(item);
}

async function loadDelivery(webhookId: string, deliveryId: string): Promise<Delivery> {
  const d = await getItem<Delivery>(keys.webhookDelivery(webhookId, deliveryId));
  if (!d) throw notFound(DELIVERY_NOT_FOUND);
  return d;
}

/** GET .../deliveries: newest first, optionally one status; at most `limit`. */
export async function listDeliveries(
  ctx: AppContext,
  input: { project_id: string; webhook_id: string; status?: Delivery['status']; limit: number },
): Promise<DeliverySummaryOut[]> {
  const webhook = await webhookOf(ctx, input.project_id, input.webhook_id);
  // One Query of the webhook's partition (bounded by the 30-day TTL), the bodies left out; ordered by time here (the sort key is the event id).
  const items = (
    await queryPartition<Delivery>(keys.webhookDelivery(webhook.id, '').PK, keys.webhookDeliveryPrefix, {
      projection: [
        'id',
        'webhook_id',
        'project_id',
        'event_type',
        'status',
        'attempts',
        'next_attempt_at',
        'created_at',
        'updated_at',
      ],
    })
  ).filter((d) => !input.status || d.status === input.status);
  return items
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id))
    .slice(0, input.limit)
    .map(summary);
}

export async function getDelivery(
  ctx: AppContext,
  input: { project_id: string; webhook_id: string; delivery_id: string },
) {
  const webhook = await webhookOf(ctx, input.project_id, input.webhook_id);
  return detail(await loadDelivery(webhook.id, input.delivery_id));
}

/** POST .../redeliver: one more attempt now, the same body and webhook-id (a redelivery does not restart the retry schedule). */
export async function redeliver(
  ctx: AppContext,
  input: { project_id: string; webhook_id: string; delivery_id: string },
) {
  const webhook = await webhookOf(ctx, input.project_id, input.webhook_id);
  if (!webhook.enabled) throw invalid(WEBHOOK_DISABLED);
  const delivery = await loadDelivery(webhook.id, input.delivery_id);
  return detail(await attempt(webhook, delivery, 'redeliver', ctx));
}

/** POST .../test: a signed `ping` now (not logged, no retries); answers what the endpoint said. */
export async function pingWebhook(ctx: AppContext, input: { project_id: string; webhook_id: string }) {
  const webhook = await webhookOf(ctx, input.project_id, input.webhook_id);
  const id = ctx.ids.newId();
  const body = JSON.stringify({
    id,
    type: 'ping',
    timestamp: ctx.clock.now().toISOString(),
    data: { webhook_id: webhook.id, project_id: webhook.project_id },
  });
  const r = await sendSigned(webhook, id, body, ctx);
  return {
    id,
    success: r.status !== null && r.status >= 200 && r.status < 300,
    status_code: r.status,
    duration_ms: r.durationMs,
    response_body: r.body.slice(0, 512),
  };
}
