import { sweepWebhookRetries } from '#domain/webhooks';
import { appContext } from '#shared/context';
import { log } from '#shared/log';

/** Runs every minute in the cloud (a timer in the local runtime): the webhook delivery attempts that have fallen due. */
export async function handler(): Promise<{ done: number; failed: number }> {
  const out = await sweepWebhookRetries(appContext());
  if (out.done || out.failed) log.info('webhook retries swept', out);
  return out;
}
