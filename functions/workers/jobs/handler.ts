import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { cancelAtProvider, changePlanAtProvider, runCheckoutJob } from '#domain/billing';
import { runImpexJob } from '#domain/impex';
import { runDiscoveryJob } from '#domain/discovery';
import { appContext } from '#shared/context';
import { errorFields, log } from '#shared/log';
import { invocation, withCorrelationId } from '#shared/observe';

/** As the queue's redrive policy: the fifth receive is the last before the dead-letter queue. */
const MAX_RECEIVES = 5;

type Job =
  | { kind: 'checkout'; user_id: string; job_id: string }
  | { kind: 'cancel-provider-subscription'; user_id: string; subscription_id: string; provider_subscription_id: string }
  | { kind: 'change-provider-plan'; user_id: string; provider_subscription_id: string; plan_id: string }
  | { kind: 'export' | 'import'; project_id: string; record_id: string }
  | { kind: 'discover'; project_id: string; run_id: string };

/** The jobs queue's worker: each message names its job; every job is idempotent; failures are reported per message for SQS to retry. */
export const handler = (event: SQSEvent): Promise<SQSBatchResponse> => invocation({ dimensions: { worker: 'jobs' } }, () => runBatch(event));

async function runBatch(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    // Each job's log lines carry its SQS message id as correlation id.
    const ok = await withCorrelationId(record.messageId, () => runOne(record));
    if (!ok) batchItemFailures.push({ itemIdentifier: record.messageId });
  }
  return { batchItemFailures };
}

async function runOne(record: SQSEvent['Records'][number]): Promise<boolean> {
  const ctx = appContext();
  try {
    const job = JSON.parse(record.body) as Job;
    const lastAttempt = Number(record.attributes.ApproximateReceiveCount) >= MAX_RECEIVES;
    if (job.kind === 'checkout') await runCheckoutJob(ctx, { user_id: job.user_id, job_id: job.job_id, lastAttempt });
    else if (job.kind === 'cancel-provider-subscription') await cancelAtProvider(ctx, job);
    else if (job.kind === 'change-provider-plan') await changePlanAtProvider(ctx, job);
    else if (job.kind === 'export' || job.kind === 'import') await runImpexJob(ctx, { record_id: job.record_id, lastAttempt });
    else if (job.kind === 'discover') await runDiscoveryJob(ctx, { run_id: job.run_id, lastAttempt });
    else log.warn('unknown job kind; dropped', { message_id: record.messageId });
    return true;
  } catch (err) {
    log.error('job failed', { message_id: record.messageId, ...errorFields(err) });
    return false;
  }
}
