import { sweepWebhookRetries } from '#domain/webhooks';
import { appContext } from '#shared/context';
import { log } from '#shared/log';
import { invocation } from '#shared/observe';
import { resendStaleOutbox } from '#shared/outbox';

/**
 * Runs every minute in the cloud (a timer in the local runtime): the webhook delivery attempts that
 * have fallen due, and the outbox items (events, mail) still waiting long after their write, handed
 * to their queues again (a queue outage or a dead letter delays them, never loses them).
 */
export const handler = (): Promise<{ done: number; failed: number; resent: number }> =>
  invocation({ dimensions: { schedule: 'webhook-retries' } }, sweep);

async function sweep(): Promise<{ done: number; failed: number; resent: number }> {
  const ctx = appContext();
  const [out, outbox] = await Promise.all([sweepWebhookRetries(ctx), resendStaleOutbox(ctx)]);
  if (out.done || out.failed) log.info('webhook retries swept', out);
  return { ...out, resent: outbox.resent };
}
