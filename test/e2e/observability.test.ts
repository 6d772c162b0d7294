import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { captureOutput } from '../helpers/output.ts';
import { client, signUp } from '../helpers/http.ts';
import { createService, ownerWithEnv } from '../helpers/catalog.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSEvent } from 'aws-lambda';
import { log } from '#shared/log';
import { workerTable } from '../../functions/workers/index.ts';

/**
 * Powertools Logger and Metrics, seen from outside. Everything the process writes is
 * captured (stdout and stderr); the stack logs at debug level and prints its EMF metrics.
 */
const written = captureOutput();
// The webhook receiver below listens on 127.0.0.1: the allowlist lets this file deliver there.
const ref = useTestStack({
  WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1',
  LOG_LEVEL: 'debug',
  POWERTOOLS_METRICS_DISABLED: 'false',
  POWERTOOLS_SERVICE_NAME: 'obs-test',
  POWERTOOLS_METRICS_NAMESPACE: 'ObsTest',
});
const api = client(() => ref.stack.url);

type Line = Record<string, any>;
/** The JSON lines written while `fn` ran (after the queues drained). */
async function linesOf(fn: () => Promise<unknown>): Promise<Line[]> {
  await ref.stack.queues.drain();
  const from = written.length;
  await fn();
  await ref.stack.queues.drain();
  return written
    .slice(from)
    .join('')
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .map((l) => JSON.parse(l) as Line);
}
const isLog = (l: Line) => typeof l.message === 'string' && typeof l.level === 'string';
const isEmf = (l: Line) => Array.isArray(l._aws?.CloudWatchMetrics);

describe('log lines (Powertools Logger)', () => {
  it('every line of one request carries its correlation id and the cold-start flag; the next request has its own', async () => {
    const user = await signUp(api);
    const first = (
      await linesOf(() => api.post('/auth/login', { email: user.email, password: 'wrong password!' }))
    ).filter(isLog);
    const second = (await linesOf(() => api.get('/auth/me', { token: 'not-a-token' }))).filter(isLog);
    for (const lines of [first, second]) {
      // received and served at least (debug), in Powertools' shape
      expect(lines.length).toBeGreaterThanOrEqual(2);
      const ids = new Set(lines.map((l) => l.correlation_id));
      expect(ids.size, JSON.stringify(lines)).toBe(1);
      expect([...ids][0]).toMatch(/^[0-9a-f-]{36}$/);
      for (const l of lines) {
        expect(l).toMatchObject({ service: 'obs-test', cold_start: false, timestamp: expect.any(String) });
        expect(['DEBUG', 'INFO', 'WARN', 'ERROR']).toContain(l.level);
      }
    }
    expect(first[0].correlation_id).not.toBe(second[0].correlation_id);
    expect(first.find((l) => l.message === 'request served')).toMatchObject({ route: 'POST /auth/login', status: 401 });
    expect(second.find((l) => l.message === 'request served')).toMatchObject({ route: 'GET /auth/me', status: 401 });
  });

  it("the correlation id is the request's id everywhere: on its log lines and on the audit entry it wrote", async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    let service: { id: string } | undefined;
    const lines = (await linesOf(async () => (service = await createService(api, token, projectId, envId)))).filter(
      isLog,
    );
    const ids = new Set(
      lines.filter((l) => l.route === 'POST /services' || l.path === '/services').map((l) => l.correlation_id),
    );
    expect(ids.size).toBe(1);
    const log = await api.get(`/projects/${projectId}/audit-log?entity_id=${service!.id}`, { token });
    expect(log.body.map((e: { request_id: string }) => e.request_id)).toEqual([...ids]);
  });

  it('requests served at once keep their own ids (the keys are per invocation, not per process)', async () => {
    const lines = (
      await linesOf(() => Promise.all(Array.from({ length: 12 }, () => api.get('/auth/me', { token: 'not-a-token' }))))
    ).filter(isLog);
    const received = lines.filter((l) => l.message === 'request received');
    const served = lines.filter((l) => l.message === 'request served');
    expect(received).toHaveLength(12);
    expect(new Set(received.map((l) => l.correlation_id)).size).toBe(12);
    expect(new Set(served.map((l) => l.correlation_id))).toEqual(new Set(received.map((l) => l.correlation_id)));
  });

  it('a line written outside any request carries no correlation id', async () => {
    const lines = (await linesOf(async () => log.info('between requests', { probe: 1 }))).filter(isLog);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'INFO', message: 'between requests', probe: 1, service: 'obs-test' });
    expect(lines[0]).not.toHaveProperty('correlation_id');
  });

  it('a worker logs each message with its SQS message id as correlation id', async () => {
    // A job of no known kind fails its schema: logged, and reported for the dead-letter queue.
    const record = (messageId: string) => ({
      messageId,
      body: JSON.stringify({ kind: 'no-such-kind' }),
      attributes: { ApproximateReceiveCount: '1' },
    });
    const event = { Records: [record('message-1'), record('message-2')] } as unknown as SQSEvent;
    let out: unknown;
    const lines = (await linesOf(async () => (out = await workerTable.jobs!.handler(event)))).filter(isLog);
    expect(lines.map((l) => [l.level, l.message, l.correlation_id])).toEqual([
      ['ERROR', 'message malformed; reported as failed, for the dead-letter queue', 'message-1'],
      ['ERROR', 'message malformed; reported as failed, for the dead-letter queue', 'message-2'],
    ]);
    expect(out).toEqual({ batchItemFailures: [{ itemIdentifier: 'message-1' }, { itemIdentifier: 'message-2' }] });
  });
});

describe('metrics (Powertools Metrics, EMF)', () => {
  it('one EMF line per request: count, latency, 4xx, 5xx by route, and the sign-in outcome', async () => {
    const user = await signUp(api);
    const ok = (await linesOf(() => api.post('/auth/login', { email: user.email, password: user.password }))).filter(
      isEmf,
    );
    const refused = (
      await linesOf(() => api.post('/auth/login', { email: user.email, password: 'wrong password!' }))
    ).filter(isEmf);
    expect(ok).toHaveLength(1);
    expect(refused).toHaveLength(1);
    const [emf] = ok;
    expect(emf._aws.CloudWatchMetrics[0].Namespace).toBe('ObsTest');
    expect(emf._aws.CloudWatchMetrics[0].Dimensions).toEqual([['service', 'route']]);
    const names = emf._aws.CloudWatchMetrics[0].Metrics.map(
      (m: { Name: string; Unit: string }) => `${m.Name}:${m.Unit}`,
    );
    expect(names).toEqual(
      expect.arrayContaining([
        'Requests:Count',
        'Latency:Milliseconds',
        'Status4xx:Count',
        'Status5xx:Count',
        'SignInSucceeded:Count',
      ]),
    );
    expect(emf).toMatchObject({
      service: 'obs-test',
      route: 'POST /auth/login',
      Requests: 1,
      Status4xx: 0,
      Status5xx: 0,
      SignInSucceeded: 1,
    });
    expect(emf.Latency).toBeGreaterThan(0);
    expect(emf).not.toHaveProperty('SignInRefused');
    expect(refused[0]).toMatchObject({
      route: 'POST /auth/login',
      Requests: 1,
      Status4xx: 1,
      Status5xx: 0,
      SignInRefused: 1,
    });
    expect(refused[0]).not.toHaveProperty('SignInSucceeded');
  });

  it('business metrics: a service created, and its webhook delivery counted by the events worker', async () => {
    const receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end()));
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const { token, projectId, envId } = await ownerWithEnv(api);
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      expect(
        (await api.post(`/projects/${projectId}/webhooks`, { url, events: ['service.created'] }, { token })).status,
      ).toBe(201);
      // linesOf drains the queues: the outbox is forwarded and the events worker delivers.
      const emf = (await linesOf(() => createService(api, token, projectId, envId))).filter(isEmf);
      expect(emf.find((l) => l.route === 'POST /services')).toMatchObject({ Requests: 1, ServicesCreated: 1 });
      const delivery = emf.find((l) => 'WebhookDeliverySucceeded' in l);
      expect(delivery).toMatchObject({ WebhookDeliverySucceeded: 1 });
      expect(delivery).not.toHaveProperty('WebhookDeliveryFailed');
    } finally {
      await new Promise<void>((r) => receiver.close(() => r()));
    }
  });

  it('an unknown path is counted under the route `unmatched` as a 4xx', async () => {
    const emf = (await linesOf(() => api.get('/no/such/path'))).filter(isEmf);
    expect(emf).toHaveLength(1);
    expect(emf[0]).toMatchObject({ route: 'unmatched', Requests: 1, Status4xx: 1 });
  });
});
