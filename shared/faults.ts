/**
 * Fault injection for the local stack and start:deployed, switched on by `FAULTS` and never in the cloud:
 * `FAULTS=ddb.throttle:0.05,ddb.timeout-after-write:0.01,sqs.duplicate:0.1` with `FAULTS_SEED` so a
 * failing run replays. Each entry is `<service>.<kind>:<probability>`:
 *
 * - SDK calls (`ddb`, `s3`, `sqs`, `ses`, `kms`, `secrets`; the local queues' sends count as `sqs` calls): `throttle` (AWS's throttling error),
 *   `error` (500 InternalServerError), `unavailable` (503), `timeout-after-write` (a write takes
 *   effect, then the call times out; once per call), and for DynamoDB `conflict` (a transaction cancelled with
 *   `TransactionConflict`). They are raised inside the SDK's retry loop, as the network would raise
 *   them, so the SDK's own retries see them first.
 * - Local queues (`sqs`): `duplicate` (delivered twice), `late` (redelivered after its visibility
 *   timeout although it succeeded), `reorder` (held back behind later messages).
 * - Workers (`worker`): `kill` (the worker dies mid-message: the message comes back).
 */

/**
 * AWS operations that change nothing (reads): never "applied, then timed out" here, never held by the
 * write gate (write-gate.ts). Kept in this file, which imports nothing, so a bundle's faults load alone.
 */
export const changesNothing = (operation: string): boolean =>
  /^(Get|BatchGet|Query|Scan|Describe|List|Head|Receive|Decrypt|TransactGet)/.test(operation);

export type FaultKind =
  | 'throttle'
  | 'error'
  | 'unavailable'
  | 'timeout-after-write'
  | 'conflict'
  | 'duplicate'
  | 'late'
  | 'reorder'
  | 'kill';
const KINDS = new Set<string>([
  'throttle',
  'error',
  'unavailable',
  'timeout-after-write',
  'conflict',
  'duplicate',
  'late',
  'reorder',
  'kill',
]);
const SERVICES = new Set(['ddb', 's3', 'sqs', 'ses', 'kms', 'secrets', 'worker']);
export type FaultService = 'ddb' | 's3' | 'sqs' | 'ses' | 'kms' | 'secrets' | 'worker';

export type FaultPlan = Map<string, number>;

/** Parses `FAULTS`; an entry that names no known service or kind, or a probability outside 0..1, is an error at start. */
export function parseFaults(spec: string): FaultPlan {
  const plan: FaultPlan = new Map();
  for (const entry of spec
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const m = /^([a-z0-9]+)\.([a-z-]+):(\d*\.?\d+)$/.exec(entry);
    const p = m ? Number(m[3]) : NaN;
    if (!m || !SERVICES.has(m[1]) || !KINDS.has(m[2]) || !(p >= 0 && p <= 1)) {
      throw new Error(
        `FAULTS: cannot read "${entry}" (expected <service>.<kind>:<probability>, service one of ${[...SERVICES].join(', ')}, kind one of ${[...KINDS].join(', ')})`,
      );
    }
    plan.set(`${m[1]}.${m[2]}`, p);
  }
  return plan;
}

/** mulberry32: a small seeded generator, so a run's faults replay from its seed (not for secrets). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A plan drawn from its own seeded generator, counting what it injected. */
export interface FaultInjector {
  strikes(service: FaultService, kind: FaultKind): boolean;
  counts(): Record<string, number>;
}

/** An injector of its own (start:deployed's SQS stand-in holds one beside the process's). */
export function faultInjector(spec: string, seed = 1): FaultInjector {
  const plan = parseFaults(spec);
  const random = seeded(seed);
  const counts = new Map<string, number>();
  return {
    strikes(service, kind) {
      const key = `${service}.${kind}`;
      const p = plan.get(key);
      if (!p || random() >= p) return false;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      return true;
    },
    counts: () => Object.fromEntries([...counts].sort()),
  };
}

let injector: FaultInjector | undefined;

/** Turns injection on for this process (the local stack calls it when `FAULTS` is set); empty turns it off. */
export function configureFaults(spec: string, seed = 1): void {
  injector = parseFaults(spec).size ? faultInjector(spec, seed) : undefined;
}

// A function running alone from its bundle (start:deployed's sandboxes, which pass FAULTS through as a
// tester override) is configured from its environment at load; the cloud never sets FAULTS. Only in a
// Lambda sandbox: the local stack and the soak switch faults on themselves, after their set-up.
if (process.env.FAULTS && process.env.AWS_LAMBDA_FUNCTION_NAME)
  configureFaults(process.env.FAULTS, Number(process.env.FAULTS_SEED ?? 1));

/** Whether a fault of `service.kind` strikes now (and counts it). */
export const strikes = (service: FaultService, kind: FaultKind): boolean => injector?.strikes(service, kind) ?? false;

/** Faults injected so far, by `service.kind` (the soak prints them). */
export const faultCounts = (): Record<string, number> => injector?.counts() ?? {};

/**
 * What the queue faults make of a message its worker handled: delivered again at once (`duplicate`),
 * again after its visibility timeout (`late`), or neither (deleted). A redelivered message is not
 * redelivered again. The local queues and start:deployed's SQS stand-in both decide by it.
 */
export function redeliveryAfterSuccess(
  receiveCount: number,
  strike: (service: FaultService, kind: FaultKind) => boolean = strikes,
): 'duplicate' | 'late' | undefined {
  if (receiveCount > 1) return undefined;
  if (strike('sqs', 'duplicate')) return 'duplicate';
  if (strike('sqs', 'late')) return 'late';
  return undefined;
}

const SERVICE_OF: Record<string, FaultService> = {
  DynamoDB: 'ddb',
  S3: 's3',
  SQS: 'sqs',
  SES: 'ses',
  KMS: 'kms',
  'Secrets Manager': 'secrets',
};

/** An error as the SDK raises it for an AWS answer (its name, status and retry hints), so every layer treats it as the real one. */
function awsError(name: string, status: number, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(`${name} (injected fault)`), {
    name,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: status, attempts: 1 },
    ...(name.includes('Throttl') || name === 'SlowDown' ? { $retryable: { throttling: true } } : {}),
    ...extra,
  });
}

/**
 * The error a call to `service` meets now when a `throttle`, `unavailable` or `error` fault strikes
 * (counted), as the SDK raises it; undefined otherwise. The SDK clients ask it for each attempt; the
 * local queues' sends (which go to no SDK client) ask it for `sqs`, so `sqs.unavailable:1` is a queue
 * outage locally as in start:deployed.
 */
export function injectedFailure(service: FaultService): Error | undefined {
  if (strikes(service, 'throttle'))
    return awsError(
      service === 'ddb'
        ? 'ProvisionedThroughputExceededException'
        : service === 's3'
          ? 'SlowDown'
          : 'ThrottlingException',
      service === 's3' ? 503 : 400,
    );
  if (strikes(service, 'unavailable')) return awsError('ServiceUnavailable', 503);
  if (strikes(service, 'error')) return awsError('InternalServerError', 500);
  return undefined;
}

/** Calls that reached the service, by their input (the same through the SDK's retries of the call). */
const tookEffect = new WeakSet<object>();
const callOf = (args: unknown) => (args as { input: object }).input;

type Stack = { add: (mw: unknown, opts: { step: string; priority: string; name: string }) => void };

/**
 * Adds injection to an AWS SDK client when faults are on (a no-op otherwise, so the cloud pays
 * nothing). It sits after the SDK's retry middleware: each attempt may fail on its own.
 */
export function withFaults<T>(client: T): T {
  if (!injector) return client;
  const c = client as { config?: { serviceId?: string }; middlewareStack?: Stack };
  const service = SERVICE_OF[c.config?.serviceId ?? ''];
  if (!service || !c.middlewareStack) return client;
  c.middlewareStack.add(
    (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
      const op = (context.commandName ?? '').replace(/Command$/, '');
      const failure = injectedFailure(service);
      if (failure) throw failure;
      // A retry of a call that took effect is answered by its token, never cancelled by a conflict.
      if (
        service === 'ddb' &&
        op === 'TransactWriteItems' &&
        !tookEffect.has(callOf(args)) &&
        strikes('ddb', 'conflict')
      ) {
        const { TransactionCanceledException } = await import('@aws-sdk/client-dynamodb');
        const items = ((args as { input?: { TransactItems?: unknown[] } }).input?.TransactItems ?? []).length;
        throw new TransactionCanceledException({
          message: 'Transaction cancelled (injected fault)',
          $metadata: { httpStatusCode: 400 },
          CancellationReasons: Array.from({ length: items }, (_, i) => ({
            Code: i === 0 ? 'TransactionConflict' : 'None',
          })),
        });
      }
      const result = await next(args);
      // Once per call: the SDK's retry after the timeout gets through (so `timeout-after-write:1` times
      // every write out once, each answer then showing how a retried write is read).
      const retried = tookEffect.has(callOf(args));
      tookEffect.add(callOf(args));
      if (!retried && !changesNothing(op) && strikes(service, 'timeout-after-write'))
        throw Object.assign(new Error('Socket timed out (injected fault, after the write took effect)'), {
          name: 'TimeoutError',
          $metadata: {},
        });
      return result;
    },
    { step: 'finalizeRequest', priority: 'low', name: 'injectFaults' },
  );
  return client;
}
