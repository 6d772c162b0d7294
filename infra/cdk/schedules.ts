import { Duration, type Stack } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { Key } from 'aws-cdk-lib/aws-kms';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { SINGLE_FUNCTIONS } from './functions.ts';
import type { Lambdas } from './lambdas.ts';

/**
 * The sweeps, in the stack's own scope. Deadlines: over one time-ordered partition of due deadlines rather
 * than a one-time schedule per window (docs/decisions/0058-limits-downgrade-and-the-grace-window.md): no scheduler role, cancelling is deleting an
 * item, and the local runtime and tests run the very same handler. Webhook retries: the same pattern,
 * every minute (the schedule's waits run from 5 s to 24 h; SQS delays stop at 15 min); the same run hands
 * outbox items still waiting long after their write to their queues again (its grants follow from its bundle).
 */
export function addSchedules(
  stack: Stack,
  lambdas: Lambdas,
  totpKey: Key,
): { deadlines: NodejsFunction; webhookRetries: NodejsFunction } {
  const deadlines = lambdas.fn(
    SINGLE_FUNCTIONS.deadlines.id,
    SINGLE_FUNCTIONS.deadlines.entry,
    512,
    Duration.minutes(5),
  );
  const webhookRetries = lambdas.fn(
    SINGLE_FUNCTIONS.webhookRetries.id,
    SINGLE_FUNCTIONS.webhookRetries.entry,
    512,
    Duration.minutes(5),
  );
  totpKey.grant(webhookRetries, 'kms:Decrypt');
  new Rule(stack, 'WebhookRetriesSchedule', {
    schedule: Schedule.rate(Duration.minutes(1)),
    targets: [new LambdaFunction(webhookRetries, { retryAttempts: 2 })],
  });
  new Rule(stack, 'DeadlinesSchedule', {
    schedule: Schedule.rate(Duration.minutes(15)),
    targets: [new LambdaFunction(deadlines, { retryAttempts: 2 })],
  });
  return { deadlines, webhookRetries };
}
