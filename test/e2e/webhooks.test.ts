import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { createService, ownerWithEnv, readItem } from '../helpers/catalog.ts';
import { readOutbox } from '../helpers/outbox.ts';
import { appContext } from '#shared/context';
import { putItem } from '#db/items';
import { deliverEvent, sweepWebhookRetries, useResolver } from '#domain/webhooks';

// The receiver listens on 127.0.0.1: the allowlist (off by default) lets this file deliver there.
const ref = useTestStack({ WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1' });
const api = client(() => ref.stack.url);

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real HTTP receiver: records every request; answers each path with the next of its scripted statuses (200 when none are left). */
const received: Received[] = [];
const script = new Map<string, (number | { status: number; headers: Record<string, string> })[]>();
let receiver: Server;
let base: string;
beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const next = script.get(req.url!)?.shift() ?? 200;
      const { status, headers } = typeof next === 'number' ? { status: next, headers: {} } : next;
      res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(`answered ${status}`);
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => receiver.close(() => r())));

const at = (path: string) => received.filter((r) => r.path === path);
const later = (ms: number) => appContext({ clock: { now: () => new Date(Date.now() + ms) } });
const MIN = 60_000;
const HOUR = 3600_000;

async function register(token: string, projectId: string, path: string, events = ['service.created']) {
  const res = await api.post(
    `/projects/${projectId}/webhooks`,
    { url: `${base}${path}`, events, description: 'test' },
    { token },
  );
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string; enabled: boolean };
}

describe('webhook delivery', () => {
  it('delivers service.created signed with X-Service-Signature and the Standard Webhooks headers', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const hook = await register(token, projectId, '/signed');
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(hook.enabled).toBe(true);
    // The secret is shown once: reads never carry it.
    const read = await api.get(`/projects/${projectId}/webhooks/${hook.id}`, { token });
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('secret');
    expect(JSON.stringify(read.body)).not.toContain(hook.secret);
    // Stored sealed, never in the clear.
    const stored = await readItem({ PK: `PROJECT#${projectId}`, SK: `WEBHOOK#${hook.id}` });
    expect(stored!.secret).toMatch(/^local:v1:/);
    expect(JSON.stringify(stored)).not.toContain(hook.secret.slice('whsec_'.length));

    const s = await createService(api, token, projectId, envId, { name: 'checkout' });
    await ref.stack.queues.drain();
    const [got] = at('/signed');
    expect(at('/signed')).toHaveLength(1);
    const event = JSON.parse(got.body);
    expect(Object.keys(event).sort()).toEqual(['data', 'id', 'timestamp', 'type']);
    expect(event.type).toBe('service.created');
    expect(event.data).toEqual({ service_id: s.id, name: 'checkout', project_id: projectId, environment_id: envId });
    // SPEC: 'sha256=' + lowercase hex HMAC-SHA-256 of the raw body with the signing secret.
    const expected = `sha256=${createHmac('sha256', hook.secret).update(got.body).digest('hex')}`;
    expect(got.headers['x-service-signature']).toBe(expected);
    expect(timingSafeEqual(Buffer.from(String(got.headers['x-service-signature'])), Buffer.from(expected))).toBe(true);
    // Standard Webhooks: the npm verifier accepts it.
    expect(got.headers['webhook-id']).toBe(event.id);
    expect(new StandardWebhook(hook.secret).verify(got.body, got.headers as Record<string, string>)).toEqual(event);
    expect(() =>
      new StandardWebhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(
        got.body,
        got.headers as Record<string, string>,
      ),
    ).toThrow();
  });

  it('retries a failing receiver on the schedule: the third attempt succeeds, the log shows three, redeliver sends the same webhook-id', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const hook = await register(token, projectId, '/flaky');
    script.set('/flaky', [500, 503]);
    await createService(api, token, projectId, envId, { name: 'flaky' });
    await ref.stack.queues.drain();
    expect(at('/flaky')).toHaveLength(1);
    // Not due yet: nothing is sent.
    await sweepWebhookRetries(later(0));
    expect(at('/flaky')).toHaveLength(1);
    // The second attempt about 5 s later (a moved clock), the third about 5 min after that.
    await sweepWebhookRetries(later(MIN));
    expect(at('/flaky')).toHaveLength(2);
    await sweepWebhookRetries(later(MIN));
    expect(at('/flaky')).toHaveLength(2);
    await sweepWebhookRetries(later(HOUR));
    expect(at('/flaky')).toHaveLength(3);
    await sweepWebhookRetries(later(30 * HOUR));
    expect(at('/flaky')).toHaveLength(3); // succeeded: no more attempts
    const ids = new Set(at('/flaky').map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1);

    const list = await api.get(`/projects/${projectId}/webhooks/${hook.id}/deliveries`, { token });
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({
      event_type: 'service.created',
      status: 'succeeded',
      attempt_count: 3,
      last_status_code: 200,
      next_attempt_at: null,
    });
    expect(
      (await api.get(`/projects/${projectId}/webhooks/${hook.id}/deliveries?status=failed`, { token })).body,
    ).toEqual([]);
    const one = await api.get(`/projects/${projectId}/webhooks/${hook.id}/deliveries/${list.body[0].id}`, { token });
    expect(one.status).toBe(200);
    expect(one.body.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 503, 200]);
    expect(one.body.attempts[0].response_body).toBe('answered 500');
    expect(one.body.payload).toEqual(JSON.parse(at('/flaky')[0].body));

    const again = await api.post(
      `/projects/${projectId}/webhooks/${hook.id}/deliveries/${list.body[0].id}/redeliver`,
      undefined,
      { token },
    );
    expect(again.status).toBe(200);
    expect(again.body.attempts).toHaveLength(4);
    expect(at('/flaky')).toHaveLength(4);
    expect(at('/flaky')[3].headers['webhook-id']).toBe(at('/flaky')[0].headers['webhook-id']);
    expect(at('/flaky')[3].body).toBe(at('/flaky')[0].body);
  });

  it('sends only subscribed events to enabled webhooks; a queue message handed over twice is delivered once', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const hook = await register(token, projectId, '/selective', ['service.deleted']);
    const s = await createService(api, token, projectId, envId, { name: 'sel' });
    await ref.stack.queues.drain();
    expect(at('/selective')).toHaveLength(0);
    expect((await api.delete(`/services/${s.id}`, undefined, { token })).status).toBe(204);
    await ref.stack.queues.drain();
    expect(at('/selective').map((r) => JSON.parse(r.body).type)).toEqual(['service.deleted']);
    const message = { project_id: projectId, event: JSON.parse(at('/selective')[0].body) };
    await deliverEvent(message, appContext());
    expect(at('/selective')).toHaveLength(1);
    // Disabled: nothing is sent.
    expect(
      (
        await api.patch(
          `/projects/${projectId}/webhooks/${hook.id}`,
          { enabled: false, events: ['service.created'] },
          { token },
        )
      ).body,
    ).toMatchObject({ enabled: false, events: ['service.created'] });
    await createService(api, token, projectId, envId, { name: 'sel-2' });
    await ref.stack.queues.drain();
    expect(at('/selective')).toHaveLength(1);
  });

  it('fans subscription.changed out to the webhooks of every project the account owns', async () => {
    const { owner, token, projectId } = await ownerWithEnv(api);
    const second = await api.post('/projects', { name: `second-${Date.now()}` }, { token });
    expect(second.status).toBe(201);
    await register(token, projectId, '/account-a', ['subscription.changed']);
    await register(token, second.body.id, '/account-b', ['subscription.changed']);
    const event = {
      id: crypto.randomUUID(),
      type: 'subscription.changed' as const,
      timestamp: new Date().toISOString(),
      data: { account_id: owner.id },
    };
    await deliverEvent({ account_id: owner.id, event }, appContext());
    expect(at('/account-a').map((r) => JSON.parse(r.body).id)).toEqual([event.id]);
    expect(at('/account-b').map((r) => JSON.parse(r.body).id)).toEqual([event.id]);
  });

  it('disables an endpoint answering 410 and mails the owner; a ping reports what the endpoint said', async () => {
    const { owner, token, projectId, envId } = await ownerWithEnv(api);
    const hook = await register(token, projectId, '/gone');
    const ping = await api.post(`/projects/${projectId}/webhooks/${hook.id}/test`, undefined, { token });
    expect(ping.status).toBe(200);
    expect(ping.body).toMatchObject({ success: true, status_code: 200, response_body: 'answered 200' });
    expect(JSON.parse(at('/gone')[0].body).type).toBe('ping');
    script.set('/gone', [410, 410]);
    await createService(api, token, projectId, envId, { name: 'gone' });
    await createService(api, token, projectId, envId, { name: 'gone-too' });
    await ref.stack.queues.drain();
    const after = await api.get(`/projects/${projectId}/webhooks/${hook.id}`, { token });
    expect(after.body).toMatchObject({ enabled: false, disabled_reason: 'The endpoint answered 410 Gone' });
    const mails = await readOutbox(ref.stack.dataDir, { to: owner.email });
    expect(mails.filter((m) => m.subject === 'A webhook was disabled')).toHaveLength(1);
    // The audit log: one disablement, by the service, with the reason (however many deliveries failed).
    const entries = (await api.get(`/projects/${projectId}/audit-log?entity_id=${hook.id}`, { token })).body as Record<
      string,
      any
    >[];
    expect(entries.map((e) => e.action)).toEqual(['webhook.disable', 'webhook.create']);
    expect(entries[0]).toMatchObject({
      actor: { type: 'service', id: null, email: null, is_staff: false },
      before: { enabled: true, disabled_reason: null },
      after: { enabled: false, disabled_reason: 'The endpoint answered 410 Gone' },
      summary: { status_code: 410 },
    });
    expect(JSON.stringify(entries)).not.toContain(hook.secret);
    // No retry is scheduled for a 410. (The ping, then one or two 410s: the second event may find the endpoint already disabled.)
    const delivered = at('/gone').length;
    expect(delivered).toBeGreaterThanOrEqual(2);
    await sweepWebhookRetries(later(HOUR));
    expect(at('/gone')).toHaveLength(delivered);
  });

  it('disables an endpoint after 5 days of failures', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const hook = await register(token, projectId, '/down');
    script.set('/down', Array(20).fill(500));
    await createService(api, token, projectId, envId, { name: 'down' });
    await ref.stack.queues.drain();
    // Each sweep comes after the attempt it should run, whatever the ±10% jitter: the last (the 9th attempt, 100 h + 20 h ± 2 h) at 125 h, past 5 days of failures.
    for (const h of [1, 3, 8, 24, 48, 72, 100]) await sweepWebhookRetries(later(h * HOUR));
    expect((await api.get(`/projects/${projectId}/webhooks/${hook.id}`, { token })).body).toMatchObject({
      enabled: true,
      disabled_reason: null,
    });
    await sweepWebhookRetries(later(125 * HOUR));
    const after = await api.get(`/projects/${projectId}/webhooks/${hook.id}`, { token });
    expect(after.body).toMatchObject({ enabled: false, disabled_reason: 'Every delivery failed for 5 days' });
    const [entry] = (
      await api.get(`/projects/${projectId}/audit-log?entity_id=${hook.id}&action=webhook.disable`, { token })
    ).body as Record<string, any>[];
    expect(entry).toMatchObject({
      actor: { type: 'service' },
      after: { enabled: false, disabled_reason: 'Every delivery failed for 5 days' },
      summary: { status_code: 500, failing_since: expect.any(String) },
    });
    // Enabling it again is the owner's entry (the disablement's time is the moved clock's, so order by action here).
    expect((await api.patch(`/projects/${projectId}/webhooks/${hook.id}`, { enabled: true }, { token })).status).toBe(
      200,
    );
    const entries = (await api.get(`/projects/${projectId}/audit-log?entity_id=${hook.id}`, { token })).body as Record<
      string,
      any
    >[];
    expect(entries.map((e) => [e.action, e.actor.type]).sort()).toEqual([
      ['webhook.create', 'account'],
      ['webhook.disable', 'service'],
      ['webhook.update', 'account'],
    ]);
    expect(entries.find((e) => e.action === 'webhook.update')).toMatchObject({
      before: { enabled: false, disabled_reason: 'Every delivery failed for 5 days' },
      after: { enabled: true, disabled_reason: null },
    });
  });

  it('rotates the secret: both sign during the grace period', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const hook = await register(token, projectId, '/rotate');
    const rotated = await api.post(`/projects/${projectId}/webhooks/${hook.id}/rotate-secret`, undefined, { token });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(hook.secret);
    await createService(api, token, projectId, envId, { name: 'rot' });
    await ref.stack.queues.drain();
    const [got] = at('/rotate');
    const headers = got.headers as Record<string, string>;
    expect(new StandardWebhook(rotated.body.secret).verify(got.body, headers)).toBeTruthy();
    expect(new StandardWebhook(hook.secret).verify(got.body, headers)).toBeTruthy();
    expect(headers['x-service-signature']).toBe(
      `sha256=${createHmac('sha256', rotated.body.secret).update(got.body).digest('hex')}`,
    );
    expect(headers['x-service-signature-previous']).toBe(
      `sha256=${createHmac('sha256', hook.secret).update(got.body).digest('hex')}`,
    );
  });

  it('honours Retry-After and treats a redirect as a failure (never followed)', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const hook = await register(token, projectId, '/later');
    script.set('/later', [
      { status: 503, headers: { 'retry-after': '7200' } },
      { status: 302, headers: { location: `${base}/elsewhere` } },
    ]);
    await createService(api, token, projectId, envId, { name: 'later' });
    await ref.stack.queues.drain();
    expect(at('/later')).toHaveLength(1);
    // The schedule says 5 s; the receiver asked for two hours.
    await sweepWebhookRetries(later(HOUR));
    expect(at('/later')).toHaveLength(1);
    await sweepWebhookRetries(later(2 * HOUR + 5 * MIN));
    expect(at('/later')).toHaveLength(2);
    expect(at('/elsewhere')).toHaveLength(0);
    const [d] = (await api.get(`/projects/${projectId}/webhooks/${hook.id}/deliveries?status=pending`, { token })).body;
    expect(d).toMatchObject({ status: 'pending', attempt_count: 2, last_status_code: 302 });
  });

  it('connects to the address it checked, not to a second resolution (no DNS rebinding window)', async () => {
    const { token, projectId } = await ownerWithEnv(api);
    // The name resolves (once, in the guard) to the allowlisted receiver; the system resolver knows nothing of it.
    let lookups = 0;
    useResolver(async (host) => {
      if (host !== 'pinned.example') throw new Error(`unexpected lookup of ${host}`);
      lookups++;
      return [{ address: '127.0.0.1', family: 4 }];
    });
    try {
      const url = `${base.replace('127.0.0.1', 'pinned.example')}/pinned`;
      const hook = (await api.post(`/projects/${projectId}/webhooks`, { url, events: ['service.created'] }, { token }))
        .body;
      const ping = await api.post(`/projects/${projectId}/webhooks/${hook.id}/test`, undefined, { token });
      expect(ping.body).toMatchObject({ success: true, status_code: 200 });
      expect(at('/pinned')).toHaveLength(1);
      expect(at('/pinned')[0].headers.host).toBe(new URL(url).host);
      expect(lookups).toBe(2); // registration, then the send's own check, whose answer the connection used
    } finally {
      useResolver(undefined);
    }
  });

  it('a worker that died after creating a delivery, before its first attempt, still gets the event sent by the sweep', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const hook = await register(token, projectId, '/crashed');
    // What the events worker had written when it died: the delivery and its safety-net due item, no attempt.
    const now = new Date();
    const guard = new Date(now.getTime() + 2 * MIN).toISOString();
    const event = {
      id: crypto.randomUUID(),
      type: 'service.created',
      timestamp: now.toISOString(),
      data: { service_id: crypto.randomUUID(), name: 'x', project_id: projectId, environment_id: envId },
    };
    await putItem({
      PK: `WEBHOOK#${hook.id}`,
      SK: `DELIVERY#${event.id}`,
      type: 'webhook_delivery',
      id: event.id,
      webhook_id: hook.id,
      project_id: projectId,
      event_type: event.type,
      body: JSON.stringify(event),
      status: 'pending',
      attempts: [],
      next_attempt_at: guard,
      created_at: event.timestamp,
      updated_at: event.timestamp,
    });
    await putItem({
      PK: 'WEBHOOK_RETRIES',
      SK: `${guard}#${hook.id}#${event.id}`,
      type: 'webhook_retry',
      webhook_id: hook.id,
      project_id: projectId,
      delivery_id: event.id,
      due_at: guard,
    });
    // The queue hands the message over again: the delivery exists, so the worker sends nothing itself.
    await deliverEvent({ project_id: projectId, event: event as never }, appContext());
    expect(at('/crashed')).toHaveLength(0);
    await sweepWebhookRetries(later(3 * MIN));
    expect(at('/crashed').map((r) => r.headers['webhook-id'])).toEqual([event.id]);
    const d = await api.get(`/projects/${projectId}/webhooks/${hook.id}/deliveries/${event.id}`, { token });
    expect(d.body).toMatchObject({ status: 'succeeded', attempt_count: 1 });
    expect(d.body.attempts[0].trigger).toBe('retry');
  });
});
