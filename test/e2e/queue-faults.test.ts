import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { ownerWithEnv, readItem } from '../helpers/catalog.ts';
import { readOutbox } from '../helpers/outbox.ts';
import { configureFaults, faultCounts } from '#shared/faults';
import { resetClients } from '#shared/clients';
import { keys } from '#db/keys';

// The receiver listens on 127.0.0.1: the allowlist lets this file deliver there.
const ref = useTestStack({ WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1' }, { withS3: true });
const api = client(() => ref.stack.url);

function faults(spec: string, seed = 1) {
  configureFaults(spec, seed);
  resetClients();
}
afterEach(() => faults(''));

const received: { path: string; headers: IncomingHttpHeaders }[] = [];
let receiver: Server;
let base = '';
beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => receiver.close(() => r())));

describe('queue faults: at-least-once delivery does nothing twice', () => {
  it('sends one invitation mail and one webhook delivery per event when every message arrives twice, late or out of order', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const hook = await api.post(
      `/projects/${projectId}/webhooks`,
      { url: `${base}/dup`, events: ['service.created'], description: 'dup' },
      { token },
    );
    expect(hook.status).toBe(201);
    faults('sqs.duplicate:1,sqs.reorder:0.5,sqs.late:0.5', 5);
    const email = `dup-${Date.now()}@example.com`;
    expect((await api.post('/invites', { project_id: projectId, invited_email: email }, { token })).status).toBe(201);
    for (const name of ['a', 'b', 'c'])
      expect(
        (await api.post('/services', { name, project_id: projectId, environment_id: envId }, { token })).status,
      ).toBe(201);
    await ref.stack.queues.drain();
    expect(faultCounts()['sqs.duplicate']).toBeGreaterThanOrEqual(4);

    expect(await readOutbox(ref.stack.dataDir, { to: email })).toHaveLength(1);
    const ids = received.filter((r) => r.path === '/dup').map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
  });

  it('finishes an import whose worker dies mid-run, by its retries, with nothing doubled', async () => {
    const document = stringify({
      apiVersion: 'infracatalog/v1',
      kind: 'Environment',
      spec: { services: Array.from({ length: 40 }, (_, i) => ({ name: `svc-${i}`, port: 8000 + i })) },
    });
    // Runs until a seed has killed the worker at least once; every run, killed or not, must be exact.
    let killed = 0;
    for (let seed = 1; seed <= 10 && !killed; seed++) {
      const { token, projectId, envId } = await ownerWithEnv(api);
      // The worker dies after its work (before the message is deleted) or in the middle of it (DynamoDB keeps failing).
      faults('worker.kill:0.5,ddb.error:0.15', seed);
      const body = new FormData();
      body.set('project_id', projectId);
      body.set('environment_id', envId);
      body.set('file', new Blob([document], { type: 'application/yaml' }), 'env.yaml');
      let started: Response | undefined;
      for (let attempt = 0; attempt < 20 && (!started || started.status === 503); attempt++) {
        started = await fetch(`${ref.stack.url}/impex/import`, {
          method: 'POST',
          body,
          headers: { authorization: `Bearer ${token}`, 'idempotency-key': `import-${seed}` },
        });
      }
      expect(started!.status).toBe(202);
      const { job_id } = (await started!.json()) as { job_id: string };
      await ref.stack.queues.drain();
      const counts = faultCounts();
      faults('');
      killed += counts['worker.kill'] ?? 0;

      const status = await api.get(`/impex/status/${job_id}?token=${encodeURIComponent(token)}`);
      expect(status.body.status, JSON.stringify(status.body) + JSON.stringify(counts)).toBe('succeeded');
      const listed = await api.get(`/services?project_id=${projectId}&environment_id=${envId}&limit=200`, { token });
      expect((listed.body as { name: string }[]).map((s) => s.name).sort()).toEqual(
        Array.from({ length: 40 }, (_, i) => `svc-${i}`).sort(),
      );
      expect((await readItem(keys.environment(projectId, envId)))!.service_count).toBe(40);
      expect((await readItem(keys.project(projectId)))!.service_count).toBe(40);
    }
    expect(killed).toBeGreaterThan(0);
  });
});
