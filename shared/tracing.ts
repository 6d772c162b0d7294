import type { Tracer } from '@aws-lambda-powertools/tracer';
import { config } from './config.ts';
import { withFaults } from './faults.ts';
import { withWriteGate } from './write-gate.ts';

let tracer: Tracer | undefined;
let loading: Promise<void> | undefined;

/**
 * X-Ray tracing (Powertools Tracer), when POWERTOOLS_TRACE_ENABLED (the stack sets it; off locally and in
 * tests). The tracer pulls aws-xray-sdk-core, about 60 ms of CPU to import: it is loaded when the first
 * invocation starts, not at import, so it stays out of the cold import (docs/cold-start.md). Every
 * invocation awaits this before it runs; SDK clients are made lazily inside invocations, so each one is
 * captured (`captured`).
 */
export async function prepareTracing(): Promise<void> {
  if (tracer || !config().POWERTOOLS_TRACE_ENABLED) return;
  loading ??= import('@aws-lambda-powertools/tracer').then(({ Tracer }) => {
    tracer = new Tracer({ serviceName: config().POWERTOOLS_SERVICE_NAME });
  });
  await loading;
}

/** An AWS SDK v3 client with X-Ray subsegments for its calls (unchanged when tracing is off), the write gate (shared/write-gate.ts), and the local stack's injected faults when they are on. */
export function captured<T>(client: T): T {
  return withWriteGate(withFaults(tracer ? tracer.captureAWSv3Client(client) : client));
}

/** Runs one invocation in its own `## handler` subsegment annotated with the cold start and service (as Powertools' middleware does). */
export async function traced<T>(fn: () => Promise<T>): Promise<T> {
  const t = tracer;
  const parent = t?.getSegment();
  if (!t || !parent) return fn();
  const sub = parent.addNewSubsegment(`## ${config().POWERTOOLS_SERVICE_NAME}`);
  t.setSegment(sub);
  t.annotateColdStart();
  t.addServiceNameAnnotation();
  try {
    return await fn();
  } catch (err) {
    sub.addError(err as Error);
    throw err;
  } finally {
    sub.close();
    t.setSegment(parent);
  }
}

/** Whether the tracer is loaded (tests). */
export const tracingLoaded = () => tracer !== undefined;
