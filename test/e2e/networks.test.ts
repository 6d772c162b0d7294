import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { grantRole } from '../helpers/tenancy.ts';
import { createNetwork, createService, expectSameNotFound, newEnv, ownerWithEnv } from '../helpers/catalog.ts';

const ref = useTestStack();
const api = client(() => ref.stack.url);

const NETWORK_FIELDS = [
  'cidr',
  'custom_fields',
  'deleted_at',
  'description',
  'environment_id',
  'gateway',
  'id',
  'is_private',
  'name',
  'project_id',
  'updated_at',
  'vlan_id',
];

describe('POST /networks', () => {
  it('creates a network; is_private defaults to true', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const res = await api.post(
      '/networks',
      {
        project_id: projectId,
        environment_id: envId,
        name: 'backend',
        cidr: '10.20.0.0/16',
        gateway: '10.20.0.1',
        vlan_id: 120,
        description: 'App tier',
      },
      { token },
    );
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(NETWORK_FIELDS);
    expect(res.body).toMatchObject({
      name: 'backend',
      cidr: '10.20.0.0/16',
      gateway: '10.20.0.1',
      vlan_id: 120,
      is_private: true,
      description: 'App tier',
      deleted_at: null,
    });
    const pub = await createNetwork(api, token, projectId, envId, { cidr: '203.0.113.0/24', is_private: false });
    expect(pub).toMatchObject({ is_private: false, gateway: null, vlan_id: null, description: null });
    expect((await api.get(`/networks/${res.body.id}`, { token })).body).toEqual(res.body);
  });

  it.each([
    ['cidr', { cidr: '10.0.0.0' }],
    ['cidr', { cidr: '10.0.0.0/33' }],
    ['cidr', { cidr: '10.0/16' }],
    ['cidr', { cidr: 'fd00::/8' }],
    ['cidr', { cidr: undefined }],
    ['name', { name: ' ' }],
    ['gateway', { gateway: '10.0.0.256' }],
    ['vlan_id', { vlan_id: 0 }],
    ['vlan_id', { vlan_id: 4095 }],
    ['is_private', { is_private: 'yes' }],
  ])('refuses an invalid %s with 422 before any lookup', async (field, fields) => {
    const user = await signUp(api);
    const res = await api.post(
      '/networks',
      { project_id: randomUUID(), environment_id: randomUUID(), name: 'n', cidr: '10.0.0.0/24', ...fields },
      { token: user.token },
    );
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc[1])).toContain(field);
  });

  it('refuses a CIDR with host bits set, naming the network meant', async () => {
    const user = await signUp(api);
    const res = await api.post(
      '/networks',
      { project_id: randomUUID(), environment_id: randomUUID(), name: 'n', cidr: '10.0.0.5/24' },
      { token: user.token },
    );
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({
      loc: ['body', 'cidr'],
      msg: 'CIDR has host bits set; did you mean 10.0.0.0/24?',
    });
  });

  it('refuses a gateway outside the network, or its network or broadcast address, with 400', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const cases: [string, string][] = [
      ['10.1.0.1', 'Gateway 10.1.0.1 is not inside the network 10.0.0.0/24'],
      ['10.0.0.0', 'Gateway 10.0.0.0 is the network or broadcast address of 10.0.0.0/24'],
      ['10.0.0.255', 'Gateway 10.0.0.255 is the network or broadcast address of 10.0.0.0/24'],
    ];
    for (const [gateway, detail] of cases) {
      const res = await api.post(
        '/networks',
        { project_id: projectId, environment_id: envId, name: `n-${gateway}`, cidr: '10.0.0.0/24', gateway },
        { token },
      );
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail });
    }
    // A point-to-point /31 has no network or broadcast address to avoid.
    expect(
      (await createNetwork(api, token, projectId, envId, { cidr: '192.168.9.0/31', gateway: '192.168.9.0' })).gateway,
    ).toBe('192.168.9.0');
  });

  it('keeps names unique per environment, ignoring case; a deleted network frees its name', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const otherEnv = await newEnv(api, token, projectId);
    const first = await createNetwork(api, token, projectId, envId, { name: 'DMZ' });
    const dup = await api.post(
      '/networks',
      { project_id: projectId, environment_id: envId, name: 'dmz', cidr: '10.9.0.0/24' },
      { token },
    );
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ detail: 'Network with this name already exists in this environment' });
    await createNetwork(api, token, projectId, otherEnv, { name: 'DMZ' });
    expect((await api.delete(`/networks/${first.id}`, undefined, { token })).status).toBe(204);
    await createNetwork(api, token, projectId, envId, { name: 'dmz' });
  });

  it('refuses non-members (404), environments outside the project (400) and viewers (403); managers create', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const other = await ownerWithEnv(api);
    const stranger = await signUp(api);
    const body = { project_id: projectId, environment_id: envId, name: 'n', cidr: '10.0.0.0/24' };
    expectSameNotFound(
      await api.post('/networks', body, { token: stranger.token }),
      await api.post('/networks', { ...body, project_id: randomUUID() }, { token: stranger.token }),
      'Project not found',
    );
    const wrongEnv = await api.post('/networks', { ...body, environment_id: other.envId }, { token });
    expect(wrongEnv.status).toBe(400);
    expect(wrongEnv.body).toEqual({ detail: 'Environment not found or does not belong to project' });
    const [viewer, manager] = [await signUp(api), await signUp(api)];
    await grantRole(api, token, envId, viewer.id, 'viewer');
    await grantRole(api, token, envId, manager.id, 'manager');
    const refused = await api.post('/networks', body, { token: viewer.token });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'Insufficient permissions to create network in this environment' });
    expect((await api.post('/networks', body, { token: manager.token })).status).toBe(201);
  });
});

describe('GET /networks', () => {
  it('lists by name with each filter', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    await createNetwork(api, token, projectId, envId, {
      name: 'apps',
      cidr: '10.1.0.0/16',
      gateway: '10.1.0.1',
      vlan_id: 100,
    });
    await createNetwork(api, token, projectId, envId, {
      name: 'db',
      cidr: '10.1.8.0/24',
      gateway: '10.1.8.254',
      vlan_id: 200,
    });
    await createNetwork(api, token, projectId, envId, {
      name: 'Edge',
      cidr: '192.168.0.0/24',
      vlan_id: 300,
      description: 'not searched',
    });
    const base = `/networks?project_id=${projectId}&environment_id=${envId}`;
    const names = async (q: string) => {
      const res = await api.get(base + q, { token });
      expect(res.status, res.text).toBe(200);
      return res.body.map((n: { name: string }) => n.name);
    };
    expect(await names('')).toEqual(['apps', 'db', 'Edge']);
    expect(await names('&q=EDGE')).toEqual(['Edge']);
    expect(await names('&q=10.1.8')).toEqual(['db']);
    expect(await names('&q=.254')).toEqual(['db']);
    expect(await names('&q=300')).toEqual(['Edge']);
    expect(await names('&q=%2F24')).toEqual(['db', 'Edge']);
    expect(await names('&q=255.255.0.0')).toEqual(['apps']);
    expect(await names('&q=searched')).toEqual([]);
    expect(await names('&vlan_id=200')).toEqual(['db']);
    expect(await names('&mask=24')).toEqual(['db', 'Edge']);
    expect(await names('&mask=16')).toEqual(['apps']);
    expect(await names(`&range=${encodeURIComponent('10.0.0.0/8')}`)).toEqual(['apps', 'db']);
    expect(await names(`&range=${encodeURIComponent('10.1.0.0/20')}`)).toEqual(['db']);
    expect(await names(`&range=${encodeURIComponent('10.1.8.0/25')}`)).toEqual([]);
    expect(await names(`&range=${encodeURIComponent('0.0.0.0/0')}&mask=24&q=e`)).toEqual(['Edge']);
    for (const q of ['&mask=33', '&vlan_id=0', '&range=10.0.0.0', '&range=banana'])
      expect((await api.get(base + q, { token })).status, q).toBe(422);
  });

  it('includes deleted networks only with updated_since; refuses an environment outside the project', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const since = new Date(Date.now() - 60_000).toISOString();
    const kept = await createNetwork(api, token, projectId, envId, { name: 'kept' });
    const gone = await createNetwork(api, token, projectId, envId, { name: 'gone' });
    expect((await api.delete(`/networks/${gone.id}`, undefined, { token })).status).toBe(204);
    const base = `/networks?project_id=${projectId}&environment_id=${envId}`;
    expect((await api.get(base, { token })).body.map((n: { id: string }) => n.id)).toEqual([kept.id]);
    const sync = await api.get(`${base}&updated_since=${encodeURIComponent(since)}`, { token });
    expect(sync.body.map((n: { name: string; deleted_at: string | null }) => [n.name, n.deleted_at !== null])).toEqual([
      ['gone', true],
      ['kept', false],
    ]);
    expect(sync.headers.get('x-sync-timestamp')).not.toBeNull();
    const other = await ownerWithEnv(api);
    const res = await api.get(`/networks?project_id=${projectId}&environment_id=${other.envId}`, { token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Environment not found or does not belong to project' });
  });
});

describe('/networks/{network_id}', () => {
  it('answers unknown and foreign ids with byte-identical 404s on every route', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const net = await createNetwork(api, token, projectId, envId);
    const service = await createService(api, token, projectId, envId);
    const stranger = await ownerWithEnv(api);
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { name: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      const foreign = await api.call(method, `/networks/${net.id}`, body, { token: stranger.token });
      const missing = await api.call(method, `/networks/${randomUUID()}`, body, { token: stranger.token });
      expectSameNotFound(foreign, missing, 'Network not found');
    }
    expectSameNotFound(
      await api.get(`/networks/${service.id}`, { token }),
      await api.get(`/networks/${randomUUID()}`, { token }),
      'Network not found',
    );
  });

  it('changes the given fields, checks the gateway against the resulting network, and keeps names unique', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const net = await createNetwork(api, token, projectId, envId, {
      name: 'core',
      cidr: '10.0.0.0/24',
      gateway: '10.0.0.1',
    });
    await createNetwork(api, token, projectId, envId, { name: 'taken' });
    const moved = await api.patch(`/networks/${net.id}`, { cidr: '10.5.0.0/24' }, { token });
    expect(moved.status).toBe(400);
    expect(moved.body).toEqual({ detail: 'Gateway 10.0.0.1 is not inside the network 10.5.0.0/24' });
    const both = await api.patch(
      `/networks/${net.id}`,
      { cidr: '10.5.0.0/24', gateway: '10.5.0.1', vlan_id: 5, is_private: false },
      { token },
    );
    expect(both.body).toMatchObject({
      cidr: '10.5.0.0/24',
      gateway: '10.5.0.1',
      vlan_id: 5,
      is_private: false,
      name: 'core',
    });
    const outside = await api.patch(`/networks/${net.id}`, { gateway: '10.0.0.1' }, { token });
    expect(outside.status).toBe(400);
    const dup = await api.patch(`/networks/${net.id}`, { name: 'TAKEN' }, { token });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ detail: 'Network with this name already exists in this environment' });
    expect((await api.patch(`/networks/${net.id}`, { name: 'CORE', gateway: null }, { token })).body).toMatchObject({
      name: 'CORE',
      gateway: null,
    });
    // The old name is free after a rename.
    expect((await api.patch(`/networks/${net.id}`, { name: 'renamed' }, { token })).status).toBe(200);
    await createNetwork(api, token, projectId, envId, { name: 'core' });
    expect((await api.patch(`/networks/${net.id}`, { cidr: '10.0.0.1/24' }, { token })).status).toBe(422);
  });

  it('lets a viewer read but not change or delete', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const viewer = await signUp(api);
    await grantRole(api, token, envId, viewer.id, 'viewer');
    const net = await createNetwork(api, token, projectId, envId);
    expect((await api.get(`/networks/${net.id}`, { token: viewer.token })).status).toBe(200);
    for (const res of [
      await api.patch(`/networks/${net.id}`, { name: 'x' }, { token: viewer.token }),
      await api.delete(`/networks/${net.id}`, undefined, { token: viewer.token }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'Insufficient permissions to manage networks in this environment' });
    }
    expect((await api.delete(`/networks/${net.id}`, undefined, { token })).status).toBe(204);
    expect((await api.delete(`/networks/${net.id}`, undefined, { token })).status).toBe(404);
  });
});
