import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { keys } from '#db/keys';
import { getItem } from '#db/items';
import { queryPartition } from '#db/query';
import { counterStep, deleteStep, existingSetStep, putNewStep } from '#db/steps';
import { transact, retryWhenStale } from '#db/transact';
import { forbidden, notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { EVENT_TYPES } from '#shared/events';
import { requireFeatures } from '#domain/billing';
import { accessToProject, planOfProject, type ProjectAccess } from '#domain/tenancy';
import { webhookEntity, type Webhook } from './webhook-entity.ts';
import { checkTarget } from './ssrf.ts';
import { seal } from '#auth/secret-box';
import { changeAudit, creationAudit } from '#shared/audit';
import { lazySchema } from '#shared/lazy-schema';

export const WEBHOOK_NOT_FOUND = 'Webhook not found';
export const FORBIDDEN_WEBHOOKS = 'Insufficient permissions to manage webhooks in this project';
/** A limit per project (every plan that has webhooks). */
export const MAX_WEBHOOKS_PER_PROJECT = 10;
export const WEBHOOK_LIMIT_REACHED = `Webhook limit reached (${MAX_WEBHOOKS_PER_PROJECT} per project)`;
/** How long the previous secret keeps signing after a rotation. */
export const ROTATION_GRACE_HOURS = 24;

const eventType = lazySchema(() => z.enum(EVENT_TYPES));
/** Something that is not a URL at all is a 422 naming the field; a URL the delivery rules refuse is checkTarget's 400. */
export const NOT_A_URL = 'Invalid URL: expected an address such as https://hooks.example.com/catalog';
const url = lazySchema(() =>
  z
    .string()
    .trim()
    .max(2000)
    .pipe(z.url({ error: NOT_A_URL })),
);
export const createWebhookBody = lazySchema(() =>
  z.object({
    url: url(),
    events: z.array(eventType()).min(1).max(EVENT_TYPES.length),
    description: z.string().trim().max(500).nullish(),
  }),
);
export const updateWebhookBody = lazySchema(() =>
  z.object({
    url: url().optional(),
    events: z.array(eventType()).min(1).max(EVENT_TYPES.length).optional(),
    description: z.string().trim().max(500).nullish(),
    enabled: z.boolean().optional(),
  }),
);

/** A signing secret in the Standard Webhooks form (`whsec_` + base64 of 32 random bytes). */
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
/** Secrets are stored sealed (KMS in the cloud), bound to their webhook: a copied value does not open elsewhere. */
export const secretContext = (webhookId: string) => ({ webhook_id: webhookId });

/**
 * The caller's access to a project's webhooks: 404 for an unknown project or a non-member, 403
 * without `webhooks.manage` (owners hold every key), then 403 naming the plan feature.
 */
export async function webhookAccess(ctx: AppContext, projectId: string): Promise<ProjectAccess> {
  return (await manageWebhooks(ctx, projectId)).access;
}

/** The access check, with the plan's retention for the entries of the change that follows. */
async function manageWebhooks(
  ctx: AppContext,
  projectId: string,
): Promise<{ access: ProjectAccess; days: number | null }> {
  const access = await accessToProject(projectId, actorAccount(ctx).id);
  access.require('webhooks.manage', FORBIDDEN_WEBHOOKS);
  const plan = await planOfProject(access.project);
  requireFeatures(plan, ['webhooks'], 'webhooks');
  return { access, days: plan.features.data_retention_days ?? null };
}

/** What an audit entry records of a webhook: what its managers read of it, never a secret (the deny-list drops those too). */
const auditedWebhook = ({
  secret: _s,
  previous_secret: _p,
  previous_secret_until: _u,
  audit_head: _h,
  created_at: _c,
  updated_at: _up,
  ...shown
}: Webhook) => shown;

async function loadWebhook(projectId: string, webhookId: string): Promise<Webhook> {
  const item = await getItem(keys.webhook(projectId, webhookId));
  if (!item) throw notFound(WEBHOOK_NOT_FOUND);
  return webhookEntity.decode(item);
}

/** POST /projects/{id}/webhooks: registers a webhook; the answer carries the signing secret, the only time it is shown. */
export async function createWebhook(
  ctx: AppContext,
  input: z.infer<ReturnType<typeof createWebhookBody>> & { project_id: string },
): Promise<{ webhook: Webhook; secret: string }> {
  const access = await webhookAccess(ctx, input.project_id);
  await checkTarget(input.url, ctx.config);
  const now = ctx.clock.now().toISOString();
  const id = ctx.ids.newId();
  const secret = newSecret();
  const webhook = webhookEntity.create({
    id,
    project_id: access.project.id,
    url: input.url,
    events: [...new Set(input.events)],
    description: input.description ?? null,
    secret: await seal(secret, secretContext(id)),
    created_by_user_id: actorAccount(ctx).id,
    created_at: now,
    updated_at: now,
  });
  await transact([
    counterStep(
      keys.project(webhook.project_id),
      { webhook_count: 1 },
      { max: { webhook_count: MAX_WEBHOOKS_PER_PROJECT }, failWith: forbidden(WEBHOOK_LIMIT_REACHED) },
    ),
    putNewStep(webhookEntity.encode(keys.webhook(webhook.project_id, webhook.id), webhook)),
    ...creationAudit(ctx, 'webhook', webhook, auditedWebhook(webhook)),
  ]);
  return { webhook, secret };
}

export async function listWebhooks(ctx: AppContext, input: { project_id: string }): Promise<Webhook[]> {
  await webhookAccess(ctx, input.project_id);
  const items = await queryPartition(keys.project(input.project_id).PK, keys.webhookPrefix);
  return items
    .map(webhookEntity.decode)
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

export async function getWebhook(ctx: AppContext, input: { project_id: string; webhook_id: string }): Promise<Webhook> {
  await webhookAccess(ctx, input.project_id);
  return loadWebhook(input.project_id, input.webhook_id);
}

/** PATCH: url (checked again), events, description, enabled (enabling clears a disablement and its failure streak). */
// Re-run from a new read when its write went stale (a concurrent change moved what it read, its audit head included: db/transact.ts).
export const updateWebhook = (...args: Parameters<typeof updateWebhookOnce>) =>
  retryWhenStale(() => updateWebhookOnce(...args));

async function updateWebhookOnce(
  ctx: AppContext,
  input: z.infer<ReturnType<typeof updateWebhookBody>> & { project_id: string; webhook_id: string },
): Promise<Webhook> {
  const { days } = await manageWebhooks(ctx, input.project_id);
  const current = await loadWebhook(input.project_id, input.webhook_id);
  if (input.url !== undefined) await checkTarget(input.url, ctx.config);
  const fields: Partial<Webhook> = { updated_at: ctx.clock.now().toISOString() };
  if (input.url !== undefined) fields.url = input.url;
  if (input.events !== undefined) fields.events = [...new Set(input.events)];
  if (input.description !== undefined) fields.description = input.description ?? null;
  if (input.enabled !== undefined) {
    fields.enabled = input.enabled;
    if (input.enabled) Object.assign(fields, { disabled_reason: null, failing_since: null });
  }
  const key = keys.webhook(input.project_id, input.webhook_id);
  const after = { ...current, ...fields };
  const changed = JSON.stringify(auditedWebhook(after)) !== JSON.stringify(auditedWebhook(current));
  const audit = changed
    ? changeAudit(
        ctx,
        'webhook',
        'update',
        current,
        { before: auditedWebhook(current), after: auditedWebhook(after) },
        days,
      )
    : undefined;
  await transact([
    existingSetStep(key, { ...fields, audit_head: audit?.head }, notFound(WEBHOOK_NOT_FOUND)),
    ...(audit?.steps ?? []),
  ]);
  return after;
}

// Re-run from a new read when its write went stale (a concurrent change moved what it read, its audit head included: db/transact.ts).
export const deleteWebhook = (...args: Parameters<typeof deleteWebhookOnce>) =>
  retryWhenStale(() => deleteWebhookOnce(...args));

async function deleteWebhookOnce(ctx: AppContext, input: { project_id: string; webhook_id: string }): Promise<void> {
  const { days } = await manageWebhooks(ctx, input.project_id);
  const current = await loadWebhook(input.project_id, input.webhook_id);
  const audit = changeAudit(ctx, 'webhook', 'delete', current, { before: auditedWebhook(current), after: null }, days);
  await transact([
    deleteStep(keys.webhook(input.project_id, input.webhook_id), notFound(WEBHOOK_NOT_FOUND)),
    counterStep(keys.project(input.project_id), { webhook_count: -1 }),
    ...audit.steps,
  ]);
}

/** POST .../rotate-secret: a new secret (shown once); the previous one keeps signing for the grace period. */
// Re-run from a new read when its write went stale (a concurrent change moved what it read, its audit head included: db/transact.ts).
export const rotateWebhookSecret = (...args: Parameters<typeof rotateWebhookSecretOnce>) =>
  retryWhenStale(() => rotateWebhookSecretOnce(...args));

async function rotateWebhookSecretOnce(
  ctx: AppContext,
  input: { project_id: string; webhook_id: string },
): Promise<{ webhook: Webhook; secret: string }> {
  const { days } = await manageWebhooks(ctx, input.project_id);
  const current = await loadWebhook(input.project_id, input.webhook_id);
  const now = ctx.clock.now();
  const secret = newSecret();
  // The entry says that the secret changed, and how long the previous one keeps signing; never either secret.
  const audit = changeAudit(ctx, 'webhook', 'rotate', current, { before: null, after: null }, days, {
    summary: { rotation_grace_hours: ROTATION_GRACE_HOURS },
  });
  const fields = {
    secret: await seal(secret, secretContext(current.id)),
    previous_secret: current.secret,
    previous_secret_until: new Date(now.getTime() + ROTATION_GRACE_HOURS * 3600_000).toISOString(),
    updated_at: now.toISOString(),
  };
  await transact([
    existingSetStep(
      keys.webhook(input.project_id, input.webhook_id),
      { ...fields, audit_head: audit.head },
      notFound(WEBHOOK_NOT_FOUND),
    ),
    ...audit.steps,
  ]);
  return { webhook: { ...current, ...fields }, secret };
}
