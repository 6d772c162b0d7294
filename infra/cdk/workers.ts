import { Duration, type Stack } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { workerTable } from '../../functions/workers/index.ts';
import type { QueueName } from '#shared/queue';
import { MAX_RECEIVES } from '#shared/queue-settings';
import { LIVE_STREAM_TYPES } from '#domain/live';
import { ack } from './bundling.ts';
import { jobsV8Flags, pascal, SINGLE_FUNCTIONS, workerFunction } from './functions.ts';
import { QUEUE_URL_ENV, type Lambdas } from './lambdas.ts';

/** A worker's Lambda timeout and SQS batch: WORKER_TIMEOUT and 10 by default; the jobs worker's exports and imports of any size one at a time, for up to 15 minutes, with V8's heap capped (jobsV8Flags). */
const WORKER_RUN: Partial<Record<QueueName, { timeout: Duration; batchSize: number; nodeOptions: string }>> = {
  jobs: { timeout: Duration.minutes(15), batchSize: 1, nodeOptions: jobsV8Flags().join(' ') },
};
export const WORKER_TIMEOUT = Duration.seconds(60);

/** Each queue, its dead-letter queue and the alarm on that one. */
export interface Queues {
  queues: Record<QueueName, Queue>;
  dlqs: Record<QueueName, Queue>;
}

/** The queues, in the stack's own scope: each with its dead-letter queue (after MAX_RECEIVES receives) and an alarm on any dead letter. */
export function createQueues(stack: Stack): Queues {
  const queues = {} as Record<QueueName, Queue>;
  const dlqs = {} as Record<QueueName, Queue>;
  for (const name of Object.keys(QUEUE_URL_ENV) as QueueName[]) {
    const dlq = new Queue(stack, `${pascal(name)}Dlq`, {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14), // the maximum: time to inspect and redrive
    });
    queues[name] = new Queue(stack, `${pascal(name)}Queue`, {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds((WORKER_RUN[name]?.timeout ?? WORKER_TIMEOUT).toSeconds() * 6), // AWS guidance for Lambda consumers
      deadLetterQueue: { queue: dlq, maxReceiveCount: MAX_RECEIVES },
    });
    dlqs[name] = dlq;
    new Alarm(stack, `${pascal(name)}DlqAlarm`, {
      alarmDescription: `Messages on the ${name} dead-letter queue: a worker failed them ${MAX_RECEIVES} times`,
      metric: dlq.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
  return { queues, dlqs };
}

/** One function per worker (functions/workers), reading its queue; the mail worker may send through SES. */
export function addWorkers(
  stack: Stack,
  lambdas: Lambdas,
  queues: Record<QueueName, Queue>,
): Record<string, NodejsFunction> {
  const workers: Record<string, NodejsFunction> = {};
  for (const [queue, worker] of Object.entries(workerTable) as [QueueName, { folder: string }][]) {
    const { id: fnId, entry: fnEntry } = workerFunction(worker.folder);
    const run = WORKER_RUN[queue];
    const f = lambdas.fn(fnId, fnEntry, 512, run?.timeout ?? WORKER_TIMEOUT);
    if (run) f.addEnvironment('NODE_OPTIONS', `${lambdas.environment.NODE_OPTIONS} ${run.nodeOptions}`);
    f.addEventSource(
      new SqsEventSource(queues[queue], { batchSize: run?.batchSize ?? 10, reportBatchItemFailures: true }),
    );
    workers[queue] = f;
  }
  const mailer = workers.mail;
  if (mailer) {
    mailer.addToRolePolicy(
      new PolicyStatement({
        actions: ['ses:SendEmail', 'ses:SendRawEmail'],
        resources: [stack.formatArn({ service: 'ses', resource: 'identity', resourceName: '*' })],
      }),
    );
    ack(
      mailer,
      'IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]',
      'The verified sender identity (domain or address of MAIL_FROM) is configured per deployment; SendEmail only.',
    );
  }
  return workers;
}

/**
 * The outbox reader: the table's stream → the events and mail queues, and each environment's live
 * changes → its WebSocket followers (`#domain/live`). Only inserted outbox items and the item types live
 * changes read reach the function (the filter is evaluated by Lambda, not billed); a failure retries from
 * the failed record; 24 h of retention. Its grants are read off its bundle like every function's (the
 * table, the two queues, posting to WebSocket connections) plus reading the stream (the event source's).
 */
export function addOutbox(lambdas: Lambdas, table: Table, { queues, dlqs }: Queues): NodejsFunction {
  const outbox = lambdas.fn(SINGLE_FUNCTIONS.outbox.id, SINGLE_FUNCTIONS.outbox.entry, 256, WORKER_TIMEOUT);
  queues.events.grantSendMessages(outbox);
  queues.mail.grantSendMessages(outbox);
  outbox.addEventSource(
    new DynamoEventSource(table, {
      startingPosition: StartingPosition.TRIM_HORIZON,
      batchSize: 100,
      reportBatchItemFailures: true,
      // A record that keeps failing must not hold its shard (every later event) for the stream's 24 hours:
      // after 10 tries (the failing part of a batch split off) its position goes to the alarmed events
      // dead-letter queue; the outbox item itself stays in the table until its consumer removes it, and
      // the webhook retry schedule's resend sweep hands it over again (shared/outbox.ts).
      bisectBatchOnError: true,
      retryAttempts: 10,
      onFailure: new SqsDlq(dlqs.events),
      filters: [
        FilterCriteria.filter({
          eventName: FilterRule.isEqual('INSERT'),
          dynamodb: { NewImage: { PK: { S: FilterRule.isEqual('OUTBOX') } } },
        }),
        // Live changes: catalog items, groups, environments, and what decides an account's access.
        FilterCriteria.filter({ dynamodb: { NewImage: { type: { S: FilterRule.or(...LIVE_STREAM_TYPES) } } } }),
        FilterCriteria.filter({
          eventName: FilterRule.isEqual('REMOVE'),
          dynamodb: { OldImage: { type: { S: FilterRule.or(...LIVE_STREAM_TYPES) } } },
        }),
      ],
    }),
  );
  ack(
    outbox,
    'IAM5[Resource::*]',
    'dynamodb:ListStreams (granted by the stream event source) has no resource-level permissions.',
  );
  return outbox;
}
