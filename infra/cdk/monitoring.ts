import { CfnOutput, Duration, type Stack } from 'aws-cdk-lib';
import type { HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { pascal } from './functions.ts';
import type { WebHosting } from './web-hosting.ts';
import type { Queues } from './workers.ts';

/** What the alarms, the dashboard and the outputs look at. */
export interface Monitored extends Queues {
  stage: HttpStage;
  httpFunctions: Record<string, NodejsFunction>;
  workers: Record<string, NodejsFunction>;
  deadlines: NodejsFunction;
  web: WebHosting;
}

/** The API's 5xx and the workers' error alarms, one dashboard and the stack's outputs, in the stack's own scope (the dead-letter alarms come with the queues). */
export function addMonitoring(stack: Stack, m: Monitored): void {
  new Alarm(stack, 'Api5xxAlarm', {
    alarmDescription: 'The API answered 5xx (a Lambda crashed, timed out or was throttled)',
    metric: m.stage.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
    threshold: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  // A worker that throws fails its whole batch (partial failures are reported, not thrown): alarm on any.
  for (const [queue, worker] of Object.entries(m.workers)) {
    new Alarm(stack, `${pascal(queue)}WorkerErrorsAlarm`, {
      alarmDescription: `The ${queue} worker failed (an error, a timeout or a crash)`,
      metric: worker.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
  // One dashboard: every function's duration (p50, p99), errors and throttles; the API's 4xx/5xx; queue age and dead letters.
  const functions = {
    ...m.httpFunctions,
    ...Object.fromEntries(Object.entries(m.workers).map(([q, f]) => [`${q} worker`, f])),
    deadlines: m.deadlines,
  };
  const perFunction = (title: string, metric: (f: NodejsFunction, label: string) => IMetric) =>
    new GraphWidget({ title, width: 12, left: Object.entries(functions).map(([label, f]) => metric(f, label)) });
  const period = Duration.minutes(5);
  new Dashboard(stack, 'Dashboard', {
    widgets: [
      [
        perFunction('Duration p50 (ms)', (f, label) => f.metricDuration({ statistic: 'p50', period, label })),
        perFunction('Duration p99 (ms)', (f, label) => f.metricDuration({ statistic: 'p99', period, label })),
      ],
      [
        perFunction('Errors', (f, label) => f.metricErrors({ statistic: 'Sum', period, label })),
        perFunction('Throttles', (f, label) => f.metricThrottles({ statistic: 'Sum', period, label })),
      ],
      [
        new GraphWidget({
          title: 'API answers 4xx / 5xx',
          width: 12,
          left: [
            m.stage.metricClientError({ statistic: 'Sum', period, label: '4xx' }),
            m.stage.metricServerError({ statistic: 'Sum', period, label: '5xx' }),
          ],
        }),
        new GraphWidget({
          title: 'Queues: age of the oldest message (s) / dead letters',
          width: 12,
          left: Object.entries(m.queues).map(([name, q]) =>
            q.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period, label: `${name} age` }),
          ),
          right: Object.entries(m.dlqs).map(([name, q]) =>
            q.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period, label: `${name} DLQ` }),
          ),
        }),
      ],
    ],
  });
  new CfnOutput(stack, 'ApiUrl', {
    value: m.stage.url,
    description: "The API's own endpoint (Bearer-token clients; browsers use SiteUrl)",
  });
  new CfnOutput(stack, 'SiteUrl', {
    value: m.web.url,
    description: 'The dashboard, and the API under the same origin',
  });
}
