import { currentScope } from './invocation.ts';

/**
 * Business metric names: one place, so a dashboard and the code agree. Counted with `metric()` by the
 * code that knows the outcome (the domain may call it: this module does not import Powertools; `#shared/observe`
 * flushes them).
 */
export type BusinessMetric =
  | 'SignInSucceeded'
  | 'SignInRefused'
  | 'ServicesCreated'
  | 'ImportsSucceeded'
  | 'ImportsFailed'
  | 'ImportsCancelled'
  | 'WebhookDeliverySucceeded'
  | 'WebhookDeliveryFailed';

/** Counts a metric in the running invocation (flushed at its end); outside an invocation nothing is counted. */
export function metric(name: BusinessMetric | 'Requests' | 'Status4xx' | 'Status5xx', value = 1): void {
  currentScope()?.metrics.push({ name, unit: 'Count', value });
}

/** A duration in milliseconds (route latency). */
export function latency(name: 'Latency', ms: number): void {
  currentScope()?.metrics.push({ name, unit: 'Milliseconds', value: Math.round(ms * 100) / 100 });
}
