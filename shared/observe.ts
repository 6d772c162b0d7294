import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { config } from './config.ts';
import { currentScope, newScope, runInScope, type InvocationScope } from './invocation.ts';
import { errorFields, log } from './log.ts';
import { prepareTracing, traced } from './tracing.ts';

let emitter: { metrics: Metrics; key: string } | undefined;

/** One Metrics per process (made on first flush; a new one only when the namespace or service changes): making one costs more than the flush. */
function metricsFor(namespace: string, serviceName: string): Metrics {
  const key = `${namespace}\n${serviceName}`;
  if (emitter?.key !== key) {
    const metrics = new Metrics({ namespace, serviceName });
    // The configuration decides (it may override the environment, as tests do): Powertools reads
    // POWERTOOLS_METRICS_DISABLED from process.env itself and has no option for it.
    (metrics as unknown as { disabled: boolean }).disabled = false;
    emitter = { metrics, key };
  }
  return emitter.metrics;
}

/**
 * Prints the invocation's metrics as ONE EMF line (CloudWatch turns it into metrics), dimensions: service
 * and the scope's own. Synchronous from the first `add` to the publish (which clears the metrics and the
 * dimensions), so concurrent invocations of the local runtime never mix in the shared Metrics.
 */
function flush(scope: InvocationScope): void {
  const c = config();
  if (c.POWERTOOLS_METRICS_DISABLED || scope.metrics.length === 0) return;
  try {
    const metrics = metricsFor(c.POWERTOOLS_METRICS_NAMESPACE, c.POWERTOOLS_SERVICE_NAME);
    for (const [k, v] of Object.entries(scope.dimensions)) metrics.addDimension(k, v);
    for (const m of scope.metrics)
      metrics.addMetric(m.name, m.unit === 'Count' ? MetricUnit.Count : MetricUnit.Milliseconds, m.value);
    metrics.publishStoredMetrics();
  } catch (err) {
    // Nothing of this invocation may be left for the next one's line.
    emitter?.metrics.clearMetrics();
    emitter?.metrics.clearDimensions();
    log.warn('metrics not published', errorFields(err));
  }
}

/**
 * Runs one invocation (an HTTP request, a worker batch, a sweep): its log lines carry `correlationId` and
 * the cold-start flag, the metrics counted during it are flushed once at its end, and with tracing on it
 * runs in its own X-Ray subsegment.
 */
export async function invocation<T>(
  opts: { correlationId?: string; dimensions?: Record<string, string> },
  fn: (scope: InvocationScope) => Promise<T>,
): Promise<T> {
  await prepareTracing();
  const scope = newScope(opts.correlationId, opts.dimensions);
  try {
    return await runInScope(scope, () => traced(() => fn(scope)));
  } finally {
    flush(scope);
  }
}

/** Inside an invocation, a part with its own correlation id (a worker's SQS message): same metrics, other id. */
export function withCorrelationId<T>(correlationId: string, fn: () => Promise<T>): Promise<T> {
  const parent = currentScope();
  if (!parent) return fn();
  return runInScope({ ...parent, correlation_id: correlationId }, fn);
}
