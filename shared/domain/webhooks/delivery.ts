import { keys } from '#db/keys';
import { getItem, updateItem } from '#db/items';
import { sweepDue } from '#db/due';
import { putNewStep, putStep, setExpression } from '#db/steps';
import { concurrentChange, transact } from '#db/transact';
import { queryPartition } from '#db/query';
import type { AppContext } from '#shared/context';
import type { DomainEvent, EventMessage } from '#shared/events';
import { liveProjects, ownedProjectIds, planOfProject } from '#domain/tenancy';
import { webhookEntity, type Webhook } from './webhook-entity.ts';
import { ok, sendSigned } from './signed-post.ts';
import { endpointHealth } from './endpoint-health.ts';
import { metric } from '#shared/metrics';

/**
 * Delivery. Each event becomes one delivery per subscribed, enabled webhook (created once, keyed by
 * event id, however often the queue hands the event over), attempted at once by the events worker.
 * A failure schedules the next attempt on the retry schedule, with ±10% jitter, never sooner than
 * the receiver's `Retry-After`: a due item in one time-ordered partition, read by the retry sweep
 * (every minute in the cloud, a timer locally, a call with a moved clock in tests).
 */

/** Seconds from the first attempt's failure to each next attempt (attempt 1 is immediate): about three days in all. */
export const RETRY_SCHEDULE_SECONDS = [
  5,
  5 * 60,
  30 * 60,
  2 * 3600,
  5 * 3600,
  10 * 3600,
  14 * 3600,
  20 * 3600,
  24 * 3600,
];
export const MAX_ATTEMPTS = RETRY_SCHEDULE_SECONDS.length + 1;
/** Delivery log retention (TTL). */
const KEEP_SECONDS = 30 * 24 * 3600;
const MAX_LOGGED_ATTEMPTS = 30;
const LOGGED_BODY = 512;

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';
export interface Attempt {
  at: string;
  status_code: number | null;
  duration_ms: number;
  response_body: string;
  trigger: 'event' | 'retry' | 'redeliver';
}
export interface Delivery {
  id: string;
  webhook_id: string;
  project_id: string;
  event_type: string;
  /** The exact bytes sent (retries and redeliveries send the same body, with the same webhook-id). */
  body: string;
  status: DeliveryStatus;
  attempts: Attempt[];
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

/** The events worker: one queue message → a delivery per subscribed webhook, each attempted once now. */
export async function deliverEvent(message: EventMessage, ctx: AppContext): Promise<void> {
  const projectIds = 'project_id' in message ? [message.project_id] : await ownedProjectIds(message.account_id);
  const projects = await liveProjects(projectIds);
  for (const project of projects) {
    const webhooks = (await queryPartition(keys.project(project.id).PK, keys.webhookPrefix))
      .map(webhookEntity.decode)
      .filter((w) => w.enabled && w.events.includes(message.event.type));
    if (!webhooks.length) continue;
    const plan = await planOfProject(project);
    if (!plan.features.webhooks) continue; // the owner left the plan that has webhooks: nothing is sent
    // In parallel: one slow endpoint (up to 15 s) does not hold up the others.
    const results = await Promise.allSettled(
      webhooks.map(async (webhook) => {
        const delivery = await openDelivery(webhook, message.event, ctx);
        if (delivery) await attempt(webhook, delivery, 'event', ctx);
      }),
    );
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}

/** A crash during the first attempt leaves the delivery to the retry sweep this much later. */
const FIRST_ATTEMPT_GUARD_MS = 2 * 60_000;
const EXISTS = concurrentChange();

/**
 * Creates the delivery unless it exists (a queue message handed over again); answers it only when
 * created now. A due item for a safety-net attempt is written with it: a crash before the first
 * attempt is recorded still gets the event delivered (the attempt moves `next_attempt_at`, which
 * makes that item stale).
 */
async function openDelivery(webhook: Webhook, event: DomainEvent, ctx: AppContext): Promise<Delivery | undefined> {
  const now = ctx.clock.now();
  const guard = new Date(now.getTime() + FIRST_ATTEMPT_GUARD_MS).toISOString();
  const delivery: Delivery = {
    id: event.id,
    webhook_id: webhook.id,
    project_id: webhook.project_id,
    event_type: event.type,
    body: JSON.stringify(event),
    status: 'pending',
    attempts: [],
    next_attempt_at: guard,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  try {
    await transact([
      putNewStep(
        {
          ...keys.webhookDelivery(webhook.id, event.id),
          type: 'webhook_delivery',
          ...delivery,
          expires_at_epoch: Math.floor(now.getTime() / 1000) + KEEP_SECONDS,
        },
        EXISTS,
      ),
      retryStep(guard, webhook, delivery.id),
    ]);
  } catch (err) {
    if (err === EXISTS) return undefined;
    throw err;
  }
  return delivery;
}

const retryStep = (dueAt: string, webhook: Webhook, deliveryId: string) =>
  putStep({
    ...keys.webhookRetry(dueAt, webhook.id, deliveryId),
    type: 'webhook_retry',
    webhook_id: webhook.id,
    project_id: webhook.project_id,
    delivery_id: deliveryId,
    due_at: dueAt,
  });

/** One attempt of a delivery, recorded; on failure the next one is scheduled (or the delivery fails for good), and the endpoint may be disabled. */
export async function attempt(
  webhook: Webhook,
  delivery: Delivery,
  trigger: Attempt['trigger'],
  ctx: AppContext,
): Promise<Delivery> {
  const result = await sendSigned(webhook, delivery.id, delivery.body, ctx);
  const now = ctx.clock.now();
  const record: Attempt = {
    at: now.toISOString(),
    status_code: result.status,
    duration_ms: result.durationMs,
    response_body: result.body.slice(0, LOGGED_BODY),
    trigger,
  };
  const attempts = [...delivery.attempts, record].slice(-MAX_LOGGED_ATTEMPTS);
  const failures = trigger === 'redeliver' ? MAX_ATTEMPTS : attempts.filter((a) => a.trigger !== 'redeliver').length;
  metric(ok(result) ? 'WebhookDeliverySucceeded' : 'WebhookDeliveryFailed'); // per attempt
  let status: DeliveryStatus = ok(result) ? 'succeeded' : 'failed';
  let next: string | null = null;
  if (!ok(result) && failures < MAX_ATTEMPTS && result.status !== 410) {
    const base = RETRY_SCHEDULE_SECONDS[failures - 1] * (0.9 + Math.random() * 0.2);
    const wait = Math.min(Math.max(base, result.retryAfterSeconds ?? 0), 24 * 3600);
    next = new Date(now.getTime() + Math.round(wait * 1000)).toISOString();
    status = 'pending';
  }
  const updated: Delivery = { ...delivery, attempts, status, next_attempt_at: next, updated_at: now.toISOString() };
  await updateItem(
    keys.webhookDelivery(webhook.id, delivery.id),
    setExpression({ attempts, status, next_attempt_at: next, updated_at: updated.updated_at }),
  );
  if (next) await transact([retryStep(next, webhook, delivery.id)]);
  await endpointHealth(webhook, result, ctx);
  return updated;
}

/** A due retry: which attempt of which delivery. */
type RetryDue = { PK: string; SK: string; webhook_id: string; project_id: string; delivery_id: string; due_at: string };

/** The retry sweep: every attempt due by now, oldest first, each run once; a stale due item (delivery moved on, webhook gone or disabled) does nothing. */
export const sweepWebhookRetries = (ctx: AppContext) =>
  sweepDue<RetryDue>(
    keys.webhookRetriesPK,
    ctx.clock.now(),
    async (d) => {
      const [item, delivery] = await Promise.all([
        getItem(keys.webhook(d.project_id, d.webhook_id)),
        getItem<Delivery>(keys.webhookDelivery(d.webhook_id, d.delivery_id)),
      ]);
      const webhook = item && webhookEntity.decode(item);
      if (webhook?.enabled && delivery?.status === 'pending' && delivery.next_attempt_at === d.due_at)
        await attempt(webhook, delivery, 'retry', ctx);
    },
    { what: 'webhook retry', logFields: (d) => ({ webhook_id: d.webhook_id, delivery_id: d.delivery_id }) },
  );
