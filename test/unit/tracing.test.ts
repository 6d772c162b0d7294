import { afterAll, describe, expect, it } from 'vitest';
import { reloadConfig } from '#shared/config';
import { ddb, resetClients } from '#shared/clients';
import { prepareTracing, traced, tracingLoaded } from '#shared/tracing';

/**
 * X-Ray tracing of the SDK clients, switchable by configuration. Off (locally, in tests) the
 * tracer is never loaded and clients are left alone; on (the stack's setting) the first invocation
 * loads it and every client made afterwards records its calls as X-Ray subsegments.
 */
const xrayMiddleware = (client: { middlewareStack: { identify(): string[] } }) =>
  client.middlewareStack.identify().filter((m) => m.startsWith('XRaySDKInstrumentation'));
const saved = { ...process.env };
afterAll(() => {
  process.env = saved;
  reloadConfig();
  resetClients();
});

describe('tracing', () => {
  it('off by default: the tracer is not loaded and clients carry no X-Ray middleware', async () => {
    reloadConfig();
    resetClients();
    await prepareTracing();
    expect(tracingLoaded()).toBe(false);
    expect(xrayMiddleware(ddb() as never)).toEqual([]);
    expect(await traced(async () => 42)).toBe(42);
  });

  it('on: the first invocation loads the tracer and clients made after it are captured', async () => {
    // What Lambda sets; with no facade segment outside Lambda, a missing context is ignored.
    process.env.AWS_EXECUTION_ENV = 'AWS_Lambda_nodejs24.x';
    process.env.AWS_XRAY_CONTEXT_MISSING = 'IGNORE_ERROR';
    reloadConfig({ POWERTOOLS_TRACE_ENABLED: 'true' });
    resetClients();
    await prepareTracing();
    expect(tracingLoaded()).toBe(true);
    expect(xrayMiddleware(ddb() as never)).toHaveLength(1);
    // Outside Lambda there is no segment to hang a subsegment on: the invocation still runs.
    expect(await traced(async () => 'ran')).toBe('ran');
  });
});
