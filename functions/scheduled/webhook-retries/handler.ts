import { sweepWebhookRetries } from '#domain/webhooks';
import { appContext } from '#shared/context';
import { log } from '#shared/log';
import { invocation } from '#shared/observe';

/** Runs every minute in the cloud (a timer in the local runtime): the webhook delivery attempts that have fallen due. */
export const handler = (): Promise<{ done: number; failed: number }> => invocation({ dimensions: { schedule: 'webhook-retries' } }, sweep);

async function sweep(): Promise<{ done: number; failed: number }> {
  const out = await sweepWebhookRetries(appContext());
  if (out.done || out.failed) log.info('webhook retries swept', out);
  return out;
}
