import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { QueueName } from '#shared/queue';
import { handler as mail } from './mail/handler.ts';
import { handler as jobs } from './jobs/handler.ts';
import { handler as events } from './events/handler.ts';

/** Which worker consumes which queue: the local runtime and the CDK stack both read this. */
export const workerTable: Partial<
  Record<QueueName, { folder: string; handler: (e: SQSEvent) => Promise<SQSBatchResponse> }>
> = {
  mail: { folder: 'mail', handler: mail },
  jobs: { folder: 'jobs', handler: jobs },
  events: { folder: 'events', handler: events },
};
