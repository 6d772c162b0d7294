import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack';
import { client } from '../helpers/http';
import { createFloor, createNetwork, createService, ownerWithEnv, readItem } from '../helpers/catalog';
import { keys } from '#db/keys';

/** Issue 18 item 1: which changes the audit log records, kind by kind (one entry per change, in its transaction). */
const ref = useTestStack();
const api = client(() => ref.stack.url);

async function entriesOf(token: string, projectId: string, entityId: string) {
  const res = await api.get(`/projects/${projectId}/audit-log?entity_id=${entityId}`, { token });
  expect(res.status, res.text).toBe(200);
  return res.body as Record<string, any>[];
}
const ok = async (p: Promise<{ status: number; text: string }>, status = 200) => {
  const res = await p;
  expect(res.status, res.text).toBe(status);
  return res as Awaited<typeof p> & { body: any };
};

describe('audit coverage of the catalog', () => {
  it('service floors: create, update, delete (with the services it detached)', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const floor = await createFloor(api, token, projectId, envId, { hostname: 'vm-1', cpu: 2 });
    const svc = await createService(api, token, projectId, envId, { service_floor_id: floor.id });
    await ok(api.patch(`/service-floors/${floor.id}`, { cpu: 4 }, { token }));
    await ok(api.delete(`/service-floors/${floor.id}`, undefined, { token }), 204);
    const entries = await entriesOf(token, projectId, floor.id);
    expect(entries.map((e) => e.action)).toEqual(['floor.delete', 'floor.update', 'floor.create']);
    expect(entries[1]).toMatchObject({ before: { cpu: 2 }, after: { cpu: 4 }, entity_type: 'floor', environment_id: envId });
    expect(entries[2].after).toMatchObject({ hostname: 'vm-1', cpu: 2, floor_type: 'vm' });
    expect(entries[0].summary).toEqual({ detached_service_ids: [svc.id] });
  });

  it('networks and attachments: create, update, delete; replacing a service’s networks', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const net = await createNetwork(api, token, projectId, envId, { name: 'lan' });
    const svc = await createService(api, token, projectId, envId);
    await ok(api.patch(`/networks/${net.id}`, { name: 'lan-2' }, { token }));
    await ok(api.patch(`/attachments/services/${svc.id}/networks`, { network_ids: [net.id] }, { token }));
    await ok(api.patch(`/attachments/services/${svc.id}/networks`, { network_ids: [net.id] }, { token })); // no change: no entry
    await ok(api.delete(`/networks/${net.id}`, undefined, { token }), 204);
    const netEntries = await entriesOf(token, projectId, net.id);
    expect(netEntries.map((e) => e.action)).toEqual(['network.delete', 'network.update', 'network.create']);
    expect(netEntries[1]).toMatchObject({ before: { name: 'lan' }, after: { name: 'lan-2' } });
    const svcEntries = await entriesOf(token, projectId, svc.id);
    expect(svcEntries.map((e) => e.action)).toEqual(['attachment.update', 'service.create']);
    expect(svcEntries[0]).toMatchObject({ entity_type: 'attachment', before: { network_ids: [] }, after: { network_ids: [net.id] }, summary: { holder: 'service' } });
  });

  it('connections, chains and links: create, update, delete; a batch is one chain entry listing its connections', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const scope = { project_id: projectId, environment_id: envId };
    const [a, b, c] = [await createService(api, token, projectId, envId), await createService(api, token, projectId, envId), await createService(api, token, projectId, envId)];
    const conn = (await ok(api.post('/service-connections', { ...scope, a_type: 'service', a_id: a.id, b_type: 'service', b_id: b.id }, { token }), 201)).body;
    await ok(api.patch(`/service-connections/${conn.id}`, { direction: 'a_to_b' }, { token }));
    await ok(api.delete(`/service-connections/${conn.id}`, undefined, { token }), 204);
    expect((await entriesOf(token, projectId, conn.id)).map((e) => [e.action, e.before, e.after])).toEqual([
      ['connection.delete', expect.objectContaining({ direction: 'a_to_b' }), null],
      ['connection.update', { direction: 'none' }, { direction: 'a_to_b' }],
      ['connection.create', null, expect.objectContaining({ a_id: a.id, b_id: b.id })],
    ]);

    const batch = (await ok(api.post('/service-connections/batch', { ...scope, group_kind: 'chain', items: [
      { a_type: 'service', a_id: a.id, b_type: 'service', b_id: b.id }, { a_type: 'service', a_id: b.id, b_type: 'service', b_id: c.id },
    ] }, { token }), 201)).body;
    const chainId = batch[0].chain_id;
    await ok(api.patch(`/service-connections/chains/${chainId}`, { name: 'path' }, { token }));
    await ok(api.delete(`/service-connections/chains/${chainId}`, undefined, { token }), 204);
    const chain = await entriesOf(token, projectId, chainId);
    expect(chain.map((e) => e.action)).toEqual(['chain.delete', 'chain.update', 'chain.create']);
    expect(chain[2].after).toEqual({ group_kind: 'chain', connections: batch.map((x: any) => ({ id: x.id, direction: 'none', name: null })) });
    expect(chain[1].after.connections.every((x: any) => x.name === 'path')).toBe(true);

    const link = (await ok(api.post('/service-links', { ...scope, from_service_id: a.id, to_service_id: c.id }, { token }), 201)).body;
    await ok(api.delete(`/service-links/${link.id}`, undefined, { token }), 204);
    expect((await entriesOf(token, projectId, link.id)).map((e) => e.action)).toEqual(['link.delete', 'link.create']);
  });

  it('no entry for a refused catalog write (a duplicate network name, a duplicate connection)', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const scope = { project_id: projectId, environment_id: envId };
    await createNetwork(api, token, projectId, envId, { name: 'dup' });
    const [a, b] = [await createService(api, token, projectId, envId), await createService(api, token, projectId, envId)];
    await ok(api.post('/service-connections', { ...scope, a_type: 'service', a_id: a.id, b_type: 'service', b_id: b.id }, { token }), 201);
    const before = (await api.get(`/projects/${projectId}/audit-log?limit=500`, { token })).body;
    expect((await api.post('/networks', { ...scope, name: 'dup', cidr: '10.1.0.0/24' }, { token })).status).not.toBe(201);
    expect((await api.post('/service-connections', { ...scope, a_type: 'service', a_id: a.id, b_type: 'service', b_id: b.id }, { token })).status).toBe(400);
    expect((await api.get(`/projects/${projectId}/audit-log?limit=500`, { token })).body).toEqual(before);
  });

  it("keeps an entity's latest entry when a floor's previous one starts expiring", async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const floor = await createFloor(api, token, projectId, envId);
    await ok(api.patch(`/service-floors/${floor.id}`, { cpu: 1 }, { token }));
    await ok(api.patch(`/service-floors/${floor.id}`, { cpu: 2 }, { token }));
    const [latest, previous, creation] = await entriesOf(token, projectId, floor.id);
    const raw = async (e: any) => readItem(keys.auditEntry(projectId, e.at, e.id));
    expect((await raw(latest))!.expires_at_epoch).toBeUndefined();
    expect((await raw(previous))!.expires_at_epoch).toBe(Math.floor(Date.parse(previous.at) / 1000) + 90 * 86400);
    expect((await raw(creation))!.expires_at_epoch).toBeUndefined();
  });
});
