import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { grantRole } from '../helpers/tenancy.ts';
import { keys } from '#db/keys';
import {
  createFloor,
  createNetwork,
  createService,
  expectSameNotFound,
  newEnv,
  ownerWithEnv,
  putConnection,
  readItem,
} from '../helpers/catalog.ts';

const ref = useTestStack();
const api = client(() => ref.stack.url);

const FLOOR_FIELDS = [
  'cloud_account_id',
  'cpu',
  'custom_fields',
  'deleted_at',
  'environment_id',
  'hostname',
  'id',
  'instances',
  'ip_address',
  'ip_addresses',
  'last_seen_at',
  'memory_mb',
  'missing_since',
  'project_id',
  'provider',
  'provider_instance_id',
  'provider_region',
  'provider_zone',
  'storage_gb',
  'tags',
  'type',
  'updated_at',
];

describe('POST /service-floors', () => {
  it('creates a server with the flat specification', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const body = {
      project_id: projectId,
      environment_id: envId,
      type: 'baremetal',
      hostname: 'db-01.internal',
      provider: 'hetzner',
      provider_region: 'fsn1',
      provider_zone: 'fsn1-dc14',
      provider_instance_id: 'srv-42',
      ip_address: '10.0.3.4',
      ip_addresses: ['10.0.3.4', 'fd00::4'],
      cpu: 32,
      memory_mb: 131072,
      storage_gb: 2000,
      instances: 1,
      tags: ['db', 'primary'],
    };
    const res = await api.post('/service-floors', body, { token });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(FLOOR_FIELDS);
    const { project_id, environment_id, ...rest } = body;
    expect(res.body).toMatchObject({ ...rest, project_id, environment_id, deleted_at: null });
    expect((await api.get(`/service-floors/${res.body.id}`, { token })).body).toEqual(res.body);
  });

  it('needs only project_id, environment_id and type', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    for (const type of ['vm', 'container', 'baremetal', 'other']) {
      const f = await createFloor(api, token, projectId, envId, { type });
      expect(f).toMatchObject({ type, hostname: null, ip_addresses: [], tags: [], cpu: null });
    }
  });

  it.each([
    ['type', { type: 'bare-metal' }],
    ['type', { type: undefined }],
    ['ip_address', { ip_address: '10.0.0.300' }],
    ['ip_address', { ip_address: '127.1' }],
    ['ip_addresses', { ip_addresses: ['10.0.0.1', 'nope'] }],
    ['provider', { provider: 'vultr' }],
    ['cpu', { cpu: -1 }],
    ['memory_mb', { memory_mb: 1.5 }],
    ['environment_id', { environment_id: 'x' }],
  ])('refuses an invalid %s with 422 before any lookup', async (field, fields) => {
    const user = await signUp(api);
    const res = await api.post(
      '/service-floors',
      { project_id: randomUUID(), environment_id: randomUUID(), type: 'vm', ...fields },
      { token: user.token },
    );
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc[1])).toContain(field);
  });

  it('refuses non-members (404), environments outside the project (400) and viewers (403); managers create', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const other = await ownerWithEnv(api);
    const stranger = await signUp(api);
    const body = { project_id: projectId, environment_id: envId, type: 'vm' };
    expectSameNotFound(
      await api.post('/service-floors', body, { token: stranger.token }),
      await api.post('/service-floors', { ...body, project_id: randomUUID() }, { token: stranger.token }),
      'Project not found',
    );
    const wrongEnv = await api.post('/service-floors', { ...body, environment_id: other.envId }, { token });
    expect(wrongEnv.status).toBe(400);
    expect(wrongEnv.body).toEqual({ detail: 'Environment not found or does not belong to project' });
    const [viewer, manager] = [await signUp(api), await signUp(api)];
    await grantRole(api, token, envId, viewer.id, 'viewer');
    await grantRole(api, token, envId, manager.id, 'manager');
    const refused = await api.post('/service-floors', body, { token: viewer.token });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'Insufficient permissions to create service floor in this environment' });
    expect((await api.post('/service-floors', body, { token: manager.token })).status).toBe(201);
  });
});

describe('GET /service-floors', () => {
  it('lists by hostname with each filter', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    await createFloor(api, token, projectId, envId, {
      hostname: 'web-01',
      type: 'vm',
      tags: ['web'],
      provider: 'aws',
      provider_region: 'eu-west-1',
      provider_zone: 'eu-west-1a',
    });
    await createFloor(api, token, projectId, envId, {
      hostname: 'WEB-02',
      type: 'container',
      tags: ['web', 'Edge'],
      provider: 'gcp',
      provider_region: 'europe-west4',
      provider_zone: 'europe-west4-b',
    });
    await createFloor(api, token, projectId, envId, {
      hostname: 'db-01',
      type: 'baremetal',
      tags: ['db'],
      provider: 'on-premise',
      provider_region: 'basement',
      provider_zone: 'rack-3',
    });
    const base = `/service-floors?project_id=${projectId}&environment_id=${envId}`;
    const hosts = async (q: string) => {
      const res = await api.get(base + q, { token });
      expect(res.status, res.text).toBe(200);
      return res.body.map((f: { hostname: string }) => f.hostname);
    };
    expect(await hosts('')).toEqual(['db-01', 'web-01', 'WEB-02']);
    expect(await hosts('&hostname=web')).toEqual(['web-01', 'WEB-02']);
    expect(await hosts('&hostname=-01')).toEqual(['db-01', 'web-01']);
    expect(await hosts('&tags=edge')).toEqual(['WEB-02']);
    expect(await hosts('&tags=db&tags=edge')).toEqual(['db-01', 'WEB-02']);
    expect(await hosts('&type=vm')).toEqual(['web-01']);
    expect(await hosts('&type=baremetal')).toEqual(['db-01']);
    expect(await hosts('&location=europe')).toEqual(['WEB-02']);
    expect(await hosts('&location=ON-PREM')).toEqual(['db-01']);
    expect(await hosts('&location=rack')).toEqual(['db-01']);
    expect(await hosts('&zone=EU-WEST-1A')).toEqual(['web-01']);
    expect(await hosts('&zone=eu-west-1')).toEqual([]);
    expect((await api.get(`${base}&type=bare-metal`, { token })).status).toBe(422);
  });

  it('includes deleted servers only with updated_since', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const since = new Date(Date.now() - 60_000).toISOString();
    const kept = await createFloor(api, token, projectId, envId, { hostname: 'kept' });
    const gone = await createFloor(api, token, projectId, envId, { hostname: 'gone' });
    expect((await api.delete(`/service-floors/${gone.id}`, undefined, { token })).status).toBe(204);
    const base = `/service-floors?project_id=${projectId}&environment_id=${envId}`;
    expect((await api.get(base, { token })).body.map((f: { id: string }) => f.id)).toEqual([kept.id]);
    const sync = await api.get(`${base}&updated_since=${encodeURIComponent(since)}`, { token });
    expect(
      sync.body.map((f: { hostname: string; deleted_at: string | null }) => [f.hostname, f.deleted_at !== null]),
    ).toEqual([
      ['gone', true],
      ['kept', false],
    ]);
    expect(sync.headers.get('x-sync-timestamp')).not.toBeNull();
  });

  it('requires both ids and refuses an environment outside the project', async () => {
    const { token, projectId } = await ownerWithEnv(api);
    const other = await ownerWithEnv(api);
    expect((await api.get(`/service-floors?environment_id=${other.envId}`, { token })).status).toBe(422);
    const res = await api.get(`/service-floors?project_id=${projectId}&environment_id=${other.envId}`, { token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Environment not found or does not belong to project' });
  });
});

describe('/service-floors/{floor_id}', () => {
  it('answers unknown and foreign ids with byte-identical 404s on every route', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const floor = await createFloor(api, token, projectId, envId);
    const service = await createService(api, token, projectId, envId);
    const stranger = await ownerWithEnv(api);
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { hostname: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      const foreign = await api.call(method, `/service-floors/${floor.id}`, body, { token: stranger.token });
      const missing = await api.call(method, `/service-floors/${randomUUID()}`, body, { token: stranger.token });
      expectSameNotFound(foreign, missing, 'ServiceFloor not found');
    }
    expectSameNotFound(
      await api.get(`/service-floors/${service.id}`, { token }),
      await api.get(`/service-floors/${randomUUID()}`, { token }),
      'ServiceFloor not found',
    );
  });

  it('changes only the given fields and validates them', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const otherEnv = await newEnv(api, token, projectId);
    const f = await createFloor(api, token, projectId, envId, { hostname: 'a', cpu: 2, tags: ['x'] });
    const res = await api.patch(
      `/service-floors/${f.id}`,
      { hostname: 'b', type: 'container', environment_id: otherEnv, ip_address: '::1' },
      { token },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      hostname: 'b',
      type: 'container',
      cpu: 2,
      tags: ['x'],
      environment_id: envId,
      ip_address: '::1',
    });
    for (const body of [{ type: 'lambda' }, { ip_address: 'x' }, { storage_gb: -5 }, { type: null }]) {
      expect((await api.patch(`/service-floors/${f.id}`, body, { token })).status, JSON.stringify(body)).toBe(422);
    }
    expect((await api.patch(`/service-floors/${f.id}`, { hostname: null, tags: null }, { token })).body).toMatchObject({
      hostname: null,
      tags: [],
    });
  });

  it('lets a viewer read but not change or delete', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const viewer = await signUp(api);
    await grantRole(api, token, envId, viewer.id, 'viewer');
    const f = await createFloor(api, token, projectId, envId);
    expect((await api.get(`/service-floors/${f.id}`, { token: viewer.token })).status).toBe(200);
    for (const res of [
      await api.patch(`/service-floors/${f.id}`, { hostname: 'x' }, { token: viewer.token }),
      await api.delete(`/service-floors/${f.id}`, undefined, { token: viewer.token }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'Insufficient permissions to manage service floors in this environment' });
    }
  });

  it('detaches its services, removes its connections and attachments when deleted', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const floor = await createFloor(api, token, projectId, envId, { type: 'vm' });
    const other = await createFloor(api, token, projectId, envId, { type: 'container' });
    const hosted = await createService(api, token, projectId, envId, { service_floor_id: floor.id });
    const elsewhere = await createService(api, token, projectId, envId, { service_floor_id: other.id });
    const net = await createNetwork(api, token, projectId, envId);
    expect(
      (await api.patch(`/attachments/service-floors/${floor.id}/networks`, { network_ids: [net.id] }, { token }))
        .status,
    ).toBe(200);
    const touching = await putConnection(projectId, envId, ['service', hosted.id], ['floor', floor.id]);
    const notTouching = await putConnection(projectId, envId, ['service', elsewhere.id], ['floor', other.id]);
    expect((await api.get(`/services/${hosted.id}`, { token })).body.type).toBe('vm');

    expect((await api.delete(`/service-floors/${floor.id}`, undefined, { token })).status).toBe(204);
    expectSameNotFound(
      await api.get(`/service-floors/${floor.id}`, { token }),
      await api.get(`/service-floors/${randomUUID()}`, { token }),
      'ServiceFloor not found',
    );
    expect((await api.get(`/services/${hosted.id}`, { token })).body).toMatchObject({
      service_floor_id: null,
      type: 'serverless',
    });
    expect((await api.get(`/services/${elsewhere.id}`, { token })).body).toMatchObject({
      service_floor_id: other.id,
      type: 'container',
    });
    expect((await readItem(touching))!.deleted_at).not.toBeNull();
    expect((await readItem(notTouching))!.deleted_at).toBeNull();
    expect((await readItem(keys.floor(projectId, envId, floor.id)))!.network_ids).toEqual([]);
    expect((await api.get(`/attachments/service-floors/${floor.id}/networks`, { token })).status).toBe(404);
    // A deleted server cannot be linked again.
    const relink = await api.patch(`/services/${hosted.id}`, { service_floor_id: floor.id }, { token });
    expect(relink.status).toBe(400);
    expect(relink.body).toEqual({ detail: 'Service floor not found in this environment' });
    expect((await api.delete(`/service-floors/${floor.id}`, undefined, { token })).status).toBe(404);
  });
});
