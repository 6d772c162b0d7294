import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { createService, ownerWithEnv } from '../helpers/catalog.ts';
import { freePort } from '../../infra/local/ports.ts';

/**
 * The README's "Verifying webhook signatures" is where a subscriber looks. Its two
 * code blocks run here exactly as written (extracted from README.md) against real deliveries of the
 * local stack: the verifier says true for a delivery and false for a tampered body, with the current
 * secret and, during a rotation, with the previous one; the example receiver acknowledges real
 * deliveries and refuses a tampered one.
 */
const README = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
const start = README.indexOf('## Verifying webhook signatures');
const section = README.slice(
  start,
  README.indexOf('\n## ', start + 1) === -1 ? undefined : README.indexOf('\n## ', start + 1),
);
const [verifierSource, receiverSource] = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);

type Verify = (rawBody: Buffer | string, headers: IncomingHttpHeaders, secret: string) => boolean;

const ref = useTestStack({ WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1' });
const api = client(() => ref.stack.url);

const received: { path: string; headers: IncomingHttpHeaders; body: Buffer }[] = [];
let receiver: Server;
let base: string;
let dir: string;
let verify: Verify;
beforeAll(async () => {
  expect(start, 'README has no "## Verifying webhook signatures" section').toBeGreaterThan(0);
  expect(verifierSource).toContain('export function verifyWebhookSignature');
  expect(receiverSource).toContain("from './verify-webhook.mjs'");
  // Saved as the README says, then imported as any receiver would.
  dir = mkdtempSync(join(tmpdir(), 'readme-webhook-'));
  writeFileSync(join(dir, 'verify-webhook.mjs'), verifierSource);
  writeFileSync(join(dir, 'receiver.mjs'), receiverSource);
  verify = ((await import(pathToFileURL(join(dir, 'verify-webhook.mjs')).href)) as { verifyWebhookSignature: Verify })
    .verifyWebhookSignature;
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => receiver.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

async function register(token: string, projectId: string, url: string) {
  const res = await api.post(`/projects/${projectId}/webhooks`, { url, events: ['service.created'] }, { token });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; secret: string };
}

const tampered = (body: Buffer) => Buffer.from(body.toString('utf8').replace('"name":"', '"name":"x'));
const otherSecret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

describe("the README's webhook signature check", () => {
  it('verifies a real delivery with the whole whsec_ secret, and refuses a tampered body or another secret', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const hook = await register(token, projectId, `${base}/current`);
    await createService(api, token, projectId, envId, { name: 'checkout' });
    await ref.stack.queues.drain();
    const [got] = received.filter((r) => r.path === '/current');
    expect(got.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(got.headers['x-service-signature-previous']).toBeUndefined();
    expect(verify(got.body, got.headers, hook.secret)).toBe(true);
    expect(verify(got.body.toString('utf8'), got.headers, hook.secret)).toBe(true);
    expect(tampered(got.body).equals(got.body)).toBe(false);
    expect(verify(tampered(got.body), got.headers, hook.secret)).toBe(false);
    expect(verify(got.body, got.headers, otherSecret)).toBe(false);
    // The secret without its prefix is another key: the whole string is the key.
    expect(verify(got.body, got.headers, hook.secret.slice('whsec_'.length))).toBe(false);
    expect(verify(got.body, {}, hook.secret)).toBe(false);
  });

  it('during a rotation, accepts the delivery with the new secret and with the previous one', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const hook = await register(token, projectId, `${base}/rotated`);
    const rotated = await api.post(`/projects/${projectId}/webhooks/${hook.id}/rotate-secret`, undefined, { token });
    expect(rotated.status, rotated.text).toBe(200);
    await createService(api, token, projectId, envId, { name: 'billing' });
    await ref.stack.queues.drain();
    const [got] = received.filter((r) => r.path === '/rotated');
    expect(got.headers['x-service-signature-previous']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verify(got.body, got.headers, rotated.body.secret)).toBe(true);
    expect(verify(got.body, got.headers, hook.secret)).toBe(true);
    expect(verify(got.body, got.headers, otherSecret)).toBe(false);
    expect(verify(tampered(got.body), got.headers, hook.secret)).toBe(false);
    expect(verify(tampered(got.body), got.headers, rotated.body.secret)).toBe(false);
  });

  it("the README's example receiver acknowledges real deliveries (204) and refuses a tampered one (401)", async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const port = await freePort();
    const hook = await register(token, projectId, `http://127.0.0.1:${port}/hook`);
    let child: ChildProcess | undefined;
    try {
      child = spawn(process.execPath, [join(dir, 'receiver.mjs')], {
        env: { ...process.env, WEBHOOK_SECRET: hook.secret, PORT: String(port) },
        stdio: 'ignore',
      });
      for (const deadline = Date.now() + 10_000; ; ) {
        const up = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).then(
          (r) => r.status,
          () => 0,
        );
        if (up === 401) break; // listening, and an unsigned body is refused
        if (Date.now() > deadline) throw new Error(`the README's receiver did not start (last answer ${up})`);
        await new Promise((r) => setTimeout(r, 100));
      }
      // A signed ping, then a real event delivery: both acknowledged.
      const ping = await api.post(`/projects/${projectId}/webhooks/${hook.id}/test`, undefined, { token });
      expect(ping.body).toMatchObject({ success: true, status_code: 204 });
      await createService(api, token, projectId, envId, { name: 'search' });
      await ref.stack.queues.drain();
      const log = await api.get(`/projects/${projectId}/webhooks/${hook.id}/deliveries`, { token });
      expect(log.status, log.text).toBe(200);
      const [delivery] = log.body as { id: string; status: string; event_type: string }[];
      expect(log.body).toHaveLength(1);
      expect(delivery).toMatchObject({ event_type: 'service.created', status: 'succeeded' });
      const attempts = (
        await api.get(`/projects/${projectId}/webhooks/${hook.id}/deliveries/${delivery.id}`, { token })
      ).body.attempts;
      expect(attempts).toEqual([expect.objectContaining({ status_code: 204 })]);
      // A body signed with this webhook's secret is acknowledged; the same signature over an altered body is refused.
      const body = Buffer.from(
        JSON.stringify({
          id: 'e1',
          type: 'service.created',
          timestamp: new Date().toISOString(),
          data: { name: 'search' },
        }),
      );
      const headers = {
        'content-type': 'application/json',
        'x-service-signature': `sha256=${createHmac('sha256', hook.secret).update(body).digest('hex')}`,
      };
      expect((await fetch(`http://127.0.0.1:${port}/hook`, { method: 'POST', headers, body })).status).toBe(204);
      expect(
        (await fetch(`http://127.0.0.1:${port}/hook`, { method: 'POST', headers, body: tampered(body) })).status,
      ).toBe(401);
    } finally {
      child?.kill();
    }
  });
});
