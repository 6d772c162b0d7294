import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack';
import { client } from '../helpers/http';
import { createService, ownerWithEnv } from '../helpers/catalog';
import { follow } from '../helpers/live';
import { CloudStub, hetznerServer } from '../../infra/local/cloud-stub';

/** Live changes made by every path that writes: an import, a discovery run, archive and restore, the environment itself. */
const stub = new CloudStub();
const env: Record<string, string> = { LOCAL_STREAM_POLL_MS: '100' };
beforeAll(async () => {
  await stub.start();
  env.HETZNER_API_BASE_URL = `${stub.url}/hetzner/v1`;
});
afterAll(() => stub.stop());
const ref = useTestStack(env, { withS3: true });
const api = client(() => ref.stack.url);

async function importDocument(token: string, projectId: string, envId: string, text: string) {
  const body = new FormData();
  body.set('project_id', projectId);
  body.set('environment_id', envId);
  body.set('file', new Blob([text], { type: 'application/json' }), 'env.json');
  const res = await fetch(`${ref.stack.url}/impex/import`, {
    method: 'POST',
    body,
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.status, await res.clone().text()).toBe(202);
  await ref.stack.queues.drain();
}

describe('live changes by every path', () => {
  it("an import's services reach the follower, each as its GET answers it", async () => {
    const o = await ownerWithEnv(api);
    const live = await follow(api, o.token, { project_id: o.projectId, environment_id: o.envId });
    const example = (await api.get('/impex/example', { token: o.token })).body;
    await importDocument(o.token, o.projectId, o.envId, JSON.stringify(example));
    const names = (example.spec.services as { name: string }[]).map((s) => s.name);
    for (const name of names) await live.next((m) => m.kind === 'service' && m.item?.name === name);
    const one = live.messages.find((m) => m.kind === 'service')!;
    const got = await api.get(`/services/${one.id}`, { token: o.token });
    expect(one).toMatchObject({ op: 'created', item: got.body });
    live.close();
  });

  it("a discovery run's servers reach the follower", async () => {
    const o = await ownerWithEnv(api, 'Enterprise');
    const live = await follow(api, o.token, { project_id: o.projectId, environment_id: o.envId });
    stub.hetzner = [hetznerServer(301, 'live-discovered')];
    const created = await api.post(
      '/integrations/cloud-accounts',
      { project_id: o.projectId, environment_id: o.envId, provider: 'hetzner', name: 'hcloud', api_token: stub.token },
      { token: o.token },
    );
    expect(created.status, created.text).toBe(201);
    const connected = await api.post(
      '/integrations/cloud/hetzner/connect',
      { account_id: created.body.id },
      { token: o.token },
    );
    expect(connected.status, connected.text).toBe(200);
    const started = await api.post(`/integrations/cloud-accounts/${created.body.id}/discover`, undefined, {
      token: o.token,
    });
    expect(started.status, started.text).toBe(202);
    await ref.stack.queues.drain();
    const floor = await live.next((m) => m.kind === 'service_floor' && m.item?.hostname === 'live-discovered');
    expect(floor.op).toBe('created');
    live.close();
  });

  it('archive says deleted, restore says created with the item', async () => {
    const o = await ownerWithEnv(api);
    const svc = await createService(api, o.token, o.projectId, o.envId);
    const live = await follow(api, o.token, { project_id: o.projectId, environment_id: o.envId });
    expect((await api.post('/me/mark-archived', { services: [svc.id] }, { token: o.token })).status).toBe(200);
    await live.next((m) => m.id === svc.id && m.op === 'deleted');
    expect((await api.post('/me/unarchive', { services: [svc.id] }, { token: o.token })).status).toBe(200);
    const back = await live.next((m) => m.id === svc.id && m.op === 'created');
    expect(back.item).toEqual((await api.get(`/services/${svc.id}`, { token: o.token })).body);
    live.close();
  });

  it("the environment's own rename and deletion, after which the connection closes", async () => {
    const o = await ownerWithEnv(api);
    const live = await follow(api, o.token, { project_id: o.projectId, environment_id: o.envId });
    const renamed = await api.patch(`/environments/${o.envId}`, { name: 'staging' }, { token: o.token });
    expect(renamed.status, renamed.text).toBe(200);
    const update = await live.next((m) => m.kind === 'environment' && m.op === 'updated');
    expect(update).toMatchObject({ id: o.envId, item: { name: 'staging' } });
    expect((await api.delete(`/environments/${o.envId}`, undefined, { token: o.token })).status).toBe(204);
    await live.next((m) => m.kind === 'environment' && m.op === 'deleted');
    expect(await live.closed).toBe(1000);
  });
});
