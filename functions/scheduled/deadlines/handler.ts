import { sweepDeadlines } from '#domain/lifecycle';
import { appContext } from '#shared/context';
import { log } from '#shared/log';
import { invocation } from '#shared/observe';

/** Runs on a schedule (every 15 minutes in the cloud; a timer in the local runtime): what has fallen due (downgrade reminders and enforcement). */
export const handler = (): Promise<{ done: number; failed: number }> =>
  invocation({ dimensions: { schedule: 'deadlines' } }, sweep);

async function sweep(): Promise<{ done: number; failed: number }> {
  const out = await sweepDeadlines(appContext());
  if (out.done || out.failed) log.info('deadlines swept', out);
  return out;
}
