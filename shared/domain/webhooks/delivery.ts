import { createHmac } from 'node:crypto';
import { keys } from '#db/keys';
import { conditionalUpdate, getItem, updateItem } from '#db/items';
import { sweepDue } from '#db/due';
import { IF_EXISTS, putNewStep, putStep, setExpression, setWhenExpression, setWhenStep } from '#db/steps';
import { concurrentChange, transact } from '#db/transact';
import { queryPartition } from '#db/query';
import type { AppContext } from '#shared/context';
import type { DomainEvent, EventMessage } from '#shared/events';
import { escapeHtml, oneLine } from '#mail/html';
import { mailStep } from '#mail/send';
import { getAccount } from '#domain/identity';
import { liveProjects, ownedProjectIds, planOfProject, retentionOfProject } from '#domain/tenancy';
import { webhookEntity, type Webhook } from './webhook-entity';
import { type CheckedTarget, checkTarget, postTo, type PostResult } from './ssrf';
import { open } from '#auth/secret-box';
import { secretContext } from './webhooks';
import { metric } from '#shared/metrics';
import { log } from '#shared/log';
import { changeAudit, SERVICE_ACTOR } from '#shared/audit';
import { conflict } from '#shared/errors';

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
/** An endpoint failing this long (every delivery since) is disabled and its owner mailed; so is one answering 410 Gone. */
export const DISABLE_AFTER_MS = 5 * 24 * 3600_000;
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

/** The two signatures: SPEC's `X-Service-Signature` and the Standard Webhooks headers (both secrets sign during a rotation's grace). */
export function signatureHeaders(
  webhook: Pick<Webhook, 'secret' | 'previous_secret' | 'previous_secret_until'>,
  id: string,
  at: Date,
  body: string,
): Record<string, string> {
  const ts = Math.floor(at.getTime() / 1000);
  const secrets = [webhook.secret];
  if (webhook.previous_secret && webhook.previous_secret_until && webhook.previous_secret_until > at.toISOString())
    secrets.push(webhook.previous_secret);
  const spec = (s: string) => `sha256=${createHmac('sha256', s).update(body).digest('hex')}`;
  const standard = (s: string) =>
    `v1,${createHmac('sha256', Buffer.from(s.replace(/^whsec_/, ''), 'base64'))
      .update(`${id}.${ts}.${body}`)
      .digest('base64')}`;
  return {
    'x-service-signature': spec(secrets[0]),
    ...(secrets[1] ? { 'x-service-signature-previous': spec(secrets[1]) } : {}),
    'webhook-id': id,
    'webhook-timestamp': String(ts),
    'webhook-signature': secrets.map(standard).join(' '),
  };
}

/** One POST of `body` to the webhook, the URL checked again first (a refused target is a failed attempt without a connection). */
export async function sendSigned(webhook: Webhook, id: string, body: string, ctx: AppContext): Promise<PostResult> {
  let target: CheckedTarget;
  try {
    target = await checkTarget(webhook.url, ctx.config);
  } catch (err) {
    return { status: null, durationMs: 0, body: `refused target: ${(err as Error).message}` };
  }
  const at = ctx.clock.now();
  const inGrace =
    !!webhook.previous_secret && !!webhook.previous_secret_until && webhook.previous_secret_until > at.toISOString();
  const [secret, previous] = await Promise.all([
    open(webhook.secret, secretContext(webhook.id)),
    inGrace ? open(webhook.previous_secret!, secretContext(webhook.id)) : null,
  ]);
  return postTo(
    target,
    body,
    signatureHeaders(
      { secret, previous_secret: previous, previous_secret_until: webhook.previous_secret_until },
      id,
      at,
      body,
    ),
  );
}

const ok = (r: PostResult) => r.status !== null && r.status >= 200 && r.status < 300;

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

/** Success clears the failure streak; a 410, or failures for 5 days, disables the webhook and mails the project's owner. */
async function endpointHealth(webhook: Webhook, result: PostResult, ctx: AppContext): Promise<void> {
  const key = keys.webhook(webhook.project_id, webhook.id);
  const now = ctx.clock.now();
  if (ok(result)) {
    if (webhook.failing_since)
      await updateItem(key, { ...setExpression({ failing_since: null }), ...IF_EXISTS }).catch(() => undefined);
    return;
  }
  const since = webhook.failing_since ?? now.toISOString();
  const reason =
    result.status === 410
      ? 'The endpoint answered 410 Gone'
      : now.getTime() - Date.parse(since) >= DISABLE_AFTER_MS
        ? 'Every delivery failed for 5 days'
        : null;
  if (!reason) {
    if (!webhook.failing_since)
      await conditionalUpdate(key, setWhenExpression({ failing_since: since }, { failing_since: null })).catch(
        () => undefined,
      );
    return;
  }
  const [project] = await liveProjects([webhook.project_id]);
  // The disablement's audit entry, by the service, in the transaction that disables it:
  // the condition (still enabled) makes it one entry however many deliveries fail at once.
  const days = project ? await retentionOfProject(project) : null;
  const audit = changeAudit(
    ctx,
    'webhook',
    'disable',
    webhook,
    { before: { enabled: true, disabled_reason: null }, after: { enabled: false, disabled_reason: reason } },
    days,
    {
      actor: SERVICE_ACTOR,
      summary: { failing_since: since, status_code: result.status },
    },
  );
  const owner = project && (await getAccount(project.owner_id));
  const text = `${reason}, so the webhook ${webhook.url} of the project ${oneLine(project?.name ?? '')} was disabled. Deliveries stopped; re-enable it with PATCH /projects/${webhook.project_id}/webhooks/${webhook.id} {"enabled": true} once the endpoint works.`;
  // The owner is told in the same transaction (the outbox): once, and never lost to a mail-queue outage.
  const mail = owner
    ? [mailStep({ to: owner.email, subject: 'A webhook was disabled', text, html: `<p>${escapeHtml(text)}</p>` }, ctx)]
    : [];
  const alreadyDisabled = conflict('already disabled');
  try {
    await transact([
      setWhenStep(
        key,
        { enabled: false, disabled_reason: reason, updated_at: now.toISOString(), audit_head: audit.head },
        { enabled: true },
        alreadyDisabled,
      ),
      ...audit.steps,
      ...mail,
    ]);
  } catch (err) {
    if (err !== alreadyDisabled) log.warn('webhook not disabled', { webhook_id: webhook.id, error: String(err) });
  }
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
