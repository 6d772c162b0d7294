import { randomUUID } from 'node:crypto';
import { redeliveryAfterSuccess, type FaultInjector } from '../../shared/faults.ts';
import type { Iam } from './iam.ts';
import { REGION, type Resolver } from './intrinsics.ts';
import type { LambdaFunction } from './lambda-functions.ts';
import type { Sqs } from './stand-ins/sqs.ts';
import { referencedId, resourcesOf, type CloudAssembly } from './template.ts';

type Invoke = (functionId: string, event: unknown) => Promise<unknown>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Local pollers in flight per SQS mapping when the template sets no MaximumConcurrency. */
const DEFAULT_POLLERS = 2;
const POLL_MS = 50;

/** The SQS event source mappings of the template, as Lambda's pollers run them (with the function's role, as Lambda does). */
export function sqsMappings(assembly: CloudAssembly, resolver: Resolver) {
  return resourcesOf(assembly, 'AWS::Lambda::EventSourceMapping')
    .map(([id, r]) => ({ id, p: r.Properties!, source: String(resolver.resolve(r.Properties!.EventSourceArn)) }))
    .filter((m) => m.source.startsWith('arn:aws:sqs:'))
    .map((m) => ({
      id: m.id,
      queueArn: m.source,
      functionId: referencedId(m.p.FunctionName)!,
      batchSize: Number(m.p.BatchSize ?? 10),
      reportsItemFailures: (m.p.FunctionResponseTypes ?? []).includes('ReportBatchItemFailures'),
      concurrency: Number(m.p.ScalingConfig?.MaximumConcurrency ?? DEFAULT_POLLERS),
    }));
}

/**
 * Runs one SQS mapping: receive a batch (the queue's visibility timeout applies), invoke the function
 * with it, delete what succeeded: all of it, or all but the reported `batchItemFailures`; a thrown
 * error leaves the whole batch to come back after its visibility timeout (and, past maxReceiveCount,
 * to go to the dead-letter queue). The receive and delete are authorized against the function's role.
 * With faults on, a handled message may not be deleted (the worker died first: `worker.kill`), or come
 * back at once or after its visibility timeout (`sqs.duplicate`, `sqs.late`), as infra/local/queues.ts decides.
 */
export function pollQueue(
  mapping: ReturnType<typeof sqsMappings>[number],
  fn: LambdaFunction,
  sqs: Sqs,
  iam: Iam,
  invoke: Invoke,
  log: (line: string) => void,
  faults?: FaultInjector,
) {
  let running = true;
  let busy = 0;
  const loop = async () => {
    while (running) {
      if (!(await iam.allows(fn.accessKeyId, 'sqs:ReceiveMessage', mapping.queueArn))) {
        await sleep(1000);
        continue;
      }
      const messages = sqs.receive(mapping.queueArn, mapping.batchSize);
      if (!messages.length) {
        await sleep(POLL_MS);
        continue;
      }
      busy++;
      const event = {
        Records: messages.map((m) => ({
          messageId: m.MessageId,
          receiptHandle: m.ReceiptHandle,
          body: m.Body,
          attributes: m.Attributes,
          messageAttributes: {},
          md5OfBody: m.MD5OfBody,
          eventSource: 'aws:sqs',
          eventSourceARN: mapping.queueArn,
          awsRegion: REGION,
        })),
      };
      let failed = new Set(messages.map((m) => m.MessageId));
      try {
        const out = (await invoke(mapping.functionId, event)) as
          | { batchItemFailures?: { itemIdentifier: string }[] }
          | undefined;
        failed = new Set(
          mapping.reportsItemFailures ? (out?.batchItemFailures ?? []).map((f) => f.itemIdentifier) : [],
        );
        // The work is done, but the worker dies before its messages are deleted: they all come back.
        if (faults?.strikes('worker', 'kill')) failed = new Set(messages.map((m) => m.MessageId));
      } catch (err) {
        log(
          `${fn.logicalId} failed its batch of ${messages.length} from ${mapping.queueArn}: ${(err as Error).message}`,
        );
      }
      for (const m of messages) {
        if (failed.has(m.MessageId)) continue;
        const again = faults && redeliveryAfterSuccess(Number(m.Attributes.ApproximateReceiveCount), faults.strikes);
        if (again === 'duplicate') sqs.changeVisibility(mapping.queueArn, m.ReceiptHandle, 0);
        if (again) continue; // 'late': back after its visibility timeout
        if (await iam.allows(fn.accessKeyId, 'sqs:DeleteMessage', mapping.queueArn))
          sqs.remove(mapping.queueArn, m.ReceiptHandle);
      }
      busy--;
    }
  };
  const loops = Array.from({ length: mapping.concurrency }, loop);
  return {
    get busy() {
      return busy > 0;
    },
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** `rate(1 minute)`, `rate(15 minutes)`, `rate(2 hours)` → milliseconds. */
export function rateMs(expression: string): number {
  const m = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression);
  if (!m) throw new Error(`schedule ${expression}: only rate() expressions are run locally`);
  const unit = m[2].startsWith('minute') ? 60_000 : m[2].startsWith('hour') ? 3_600_000 : 86_400_000;
  return Number(m[1]) * unit;
}

/** The scheduled rules' targets, invoked on their rate with EventBridge's scheduled event; a failure is retried as the target's RetryPolicy says. */
export function startSchedules(
  assembly: CloudAssembly,
  resolver: Resolver,
  invoke: Invoke,
  log: (line: string) => void,
) {
  const fires: (() => Promise<void>)[] = [];
  const timers = resourcesOf(assembly, 'AWS::Events::Rule')
    .filter(([, r]) => r.Properties?.ScheduleExpression && r.Properties.State !== 'DISABLED')
    .flatMap(([id, r]) =>
      (r.Properties!.Targets as { Arn: unknown; RetryPolicy?: { MaximumRetryAttempts?: number } }[]).map((t) => {
        const functionId = referencedId(t.Arn)!;
        const fire = async () => {
          const event = {
            version: '0',
            id: randomUUID(),
            'detail-type': 'Scheduled Event',
            source: 'aws.events',
            account: resolver.ref('AWS::AccountId'),
            time: new Date().toISOString(),
            region: REGION,
            resources: [`arn:aws:events:${REGION}:${resolver.ref('AWS::AccountId')}:rule/${id}`],
            detail: {},
          };
          for (let attempt = 0; attempt <= (t.RetryPolicy?.MaximumRetryAttempts ?? 185); attempt++) {
            try {
              return void (await invoke(functionId, event));
            } catch (err) {
              log(`${id} → ${functionId} failed: ${(err as Error).message}`);
            }
          }
        };
        fires.push(fire);
        return setInterval(() => void fire(), rateMs(String(r.Properties!.ScheduleExpression))).unref();
      }),
    );
  return {
    /** Fires every rule now, as its schedule would (a tester need not wait 15 minutes). */
    fireAll: () => Promise.all(fires.map((f) => f())).then(() => undefined),
    stop: () => timers.forEach(clearInterval),
  };
}
