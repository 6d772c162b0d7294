import * as z from 'zod';
import {
  cancelAtProvider,
  cancelProviderSubscriptionJobMessage,
  changePlanAtProvider,
  changeProviderPlanJobMessage,
  checkoutJobMessage,
  runCheckoutJob,
} from '#domain/billing';
import { impexJobMessage, runImpexJob } from '#domain/impex';
import { discoverJobMessage, runDiscoveryJob } from '#domain/discovery';
import { customFieldJobMessage, runCustomFieldJob } from '#domain/catalog';
import { appContext } from '#shared/context';
import { lazySchema } from '#shared/lazy-schema';
import { MAX_RECEIVES } from '#shared/queue-settings';
import { sqsWorker } from '../batch.ts';

/** Every job the queue carries, by `kind`; each kind's schema lives beside the code that queues it. */
const jobMessage = lazySchema(() =>
  z.discriminatedUnion('kind', [
    checkoutJobMessage(),
    cancelProviderSubscriptionJobMessage(),
    changeProviderPlanJobMessage(),
    impexJobMessage(),
    discoverJobMessage(),
    customFieldJobMessage(),
  ]),
);

/** The jobs queue's worker: each message names its job; every job is idempotent; failures are reported per message for SQS to retry. */
export const handler = sqsWorker({
  name: 'jobs',
  schema: jobMessage,
  inParallel: false,
  failure: 'job failed',
  async handle(job, record) {
    const ctx = appContext();
    const lastAttempt = Number(record.attributes.ApproximateReceiveCount) >= MAX_RECEIVES;
    if (job.kind === 'checkout') await runCheckoutJob(ctx, { user_id: job.user_id, job_id: job.job_id, lastAttempt });
    else if (job.kind === 'cancel-provider-subscription') await cancelAtProvider(ctx, job);
    else if (job.kind === 'change-provider-plan') await changePlanAtProvider(ctx, job);
    else if (job.kind === 'custom-field-delete') await runCustomFieldJob(ctx, { ...job, lastAttempt });
    else if (job.kind === 'discover') await runDiscoveryJob(ctx, { run_id: job.run_id, lastAttempt });
    else await runImpexJob(ctx, { record_id: job.record_id, lastAttempt });
  },
});
