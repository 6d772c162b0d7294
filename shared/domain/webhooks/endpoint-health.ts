import { keys } from '#db/keys';
import { conditionalUpdate, updateItem } from '#db/items';
import { IF_EXISTS, setExpression, setWhenExpression, setWhenStep } from '#db/steps';
import { transact } from '#db/transact';
import type { AppContext } from '#shared/context';
import { escapeHtml, oneLine } from '#mail/html';
import { mailStep } from '#mail/send';
import { getAccount } from '#domain/identity';
import { liveProjects, retentionOfProject } from '#domain/tenancy';
import type { Webhook } from './webhook-entity.ts';
import type { PostResult } from './ssrf.ts';
import { ok } from './signed-post.ts';
import { log } from '#shared/log';
import { changeAudit, SERVICE_ACTOR } from '#shared/audit';
import { conflict } from '#shared/errors';

/**
 * An endpoint's health after each delivery attempt: its failure streak (`failing_since`), and its
 * disablement (410 Gone, or every delivery failing for days) with the audit entry and the owner's mail
 * written in the same transaction.
 */

/** An endpoint failing this long (every delivery since) is disabled and its owner mailed; so is one answering 410 Gone. */
export const DISABLE_AFTER_MS = 5 * 24 * 3600_000;

/** Success clears the failure streak; a 410, or failures for 5 days, disables the webhook and mails the project's owner. */
export async function endpointHealth(webhook: Webhook, result: PostResult, ctx: AppContext): Promise<void> {
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
