import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { createService, ownerWithEnv } from '../helpers/catalog.ts';
import { follow } from '../helpers/live.ts';
import { hetznerServer } from '../../infra/local/cloud-stub.ts';
import { hetznerDiscovery, importDocument, useHetznerStub } from '../helpers/other-paths.ts';

/** Live changes made by every path that writes: an import, a discovery run, archive and restore, the environment itself. */
const env: Record<string, string> = { LOCAL_STREAM_POLL_MS: '100' };
const stub = useHetznerStub(env);
const ref = useTestStack(env, { withS3: true });
const api = client(() => ref.stack.url);

describe('live changes by every path', () => {
  it("an import's services reach the follower, each as its GET answers it", async () => {
    const o = await ownerWithEnv(api);
    const live = await follow(api, o.token, { project_id: o.projectId, environment_id: o.envId });
    const example = (await api.get('/impex/example', { token: o.token })).body;
    await importDocument(ref, o.token, { project_id: o.projectId, environment_id: o.envId }, example);
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
    await hetznerDiscovery(ref, api, stub, o.token, { project_id: o.projectId, environment_id: o.envId });
    const floor = await live.next((m) => m.kind === 'service_floor' && m.item?.hostname === 'live-discovered');
    expect(floor.op).toBe('created');
    live.close();
  });

  it('archive says deleted, restore says created with the item', async () => {
    const o = await ownerWithEnv(api);
    const svc = await createService(api, o.token, o.projectId, o.envId);
    const live = await follow(api, o.token, { project_id: o.projectId, environment_id: o.envId });
    expect((await api.post('/me/mark-archived', { services: [svc.id] }, { token: o.token })).status).toBe(200);
    const gone = await live.next((m) => m.id === svc.id && m.op === 'deleted');
    expect((await api.post('/me/unarchive', { services: [svc.id] }, { token: o.token })).status).toBe(200);
    // After the archive's: the service's own creation may come first (numbered after the ticket was issued).
    const back = await live.next((m) => m.id === svc.id && m.op === 'created' && m.seq > gone.seq);
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
