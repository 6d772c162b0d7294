import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { grantRole } from '../helpers/tenancy.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#db/keys';
import { ddb } from '#shared/clients';
import { countCalls } from '../bench/measure.ts';
import {
  createFloor,
  createService,
  expectSameNotFound,
  newEnv,
  ownerWithEnv,
  putChain,
  putConnection,
  putGroup,
  putLink,
  putSubgroup,
  readItem,
  softDelete,
} from '../helpers/catalog.ts';

const ref = useTestStack();
const api = client(() => ref.stack.url);

const SERVICE_FIELDS = [
  'agent_id',
  'category',
  'custom_fields',
  'deleted_at',
  'environment_id',
  'group_id',
  'group_name',
  'id',
  'ip_address',
  'links',
  'name',
  'owner_user_id',
  'port',
  'programming_language',
  'programming_language_version',
  'project_id',
  'provider',
  'provider_region',
  'provider_zone',
  'replicas',
  'repository_deps',
  'repository_url',
  'responsible_name',
  'responsible_project_user_id',
  'responsible_user_id',
  'service_floor_id',
  'subgroup_id',
  'subgroup_name',
  'tags',
  'tracker_project_key',
  'type',
  'updated_at',
  'version',
];

describe('POST /services', () => {
  it('creates a service in the documented shape, owned by the caller whatever the body says', async () => {
    const { owner, token, projectId, envId } = await ownerWithEnv(api);
    const res = await api.post(
      '/services',
      {
        name: 'billing-api',
        project_id: projectId,
        environment_id: envId,
        owner_user_id: randomUUID(),
        type: 'vm',
        category: 'backend',
        replicas: 3,
        provider: 'aws',
        provider_region: 'eu-west-1',
        provider_zone: 'eu-west-1a',
        tracker_project_key: 'BILL',
        port: 8080,
        ip_address: '10.0.0.7',
        agent_id: randomUUID(),
        responsible_name: 'Ada',
        programming_language: 'Go',
        programming_language_version: '1.22',
        repository_url: 'https://git.example.com/billing.git',
        version: '2.1.0',
        links: ['https://docs.example.com', 'http://wiki.local/billing'],
        tags: ['payments', 'core'],
        repository_deps: [{ name: 'ledger', repository_url: 'git://git.example.com/ledger.git', version: '1.0' }],
      },
      { token },
    );
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(SERVICE_FIELDS);
    expect(res.body).toMatchObject({
      name: 'billing-api',
      owner_user_id: owner.id,
      project_id: projectId,
      environment_id: envId,
      type: 'serverless',
      service_floor_id: null,
      group_name: null,
      subgroup_name: null,
      category: 'backend',
      replicas: 3,
      provider: 'aws',
      port: 8080,
      tags: ['payments', 'core'],
      links: ['https://docs.example.com', 'http://wiki.local/billing'],
      deleted_at: null,
      repository_deps: [{ name: 'ledger', repository_url: 'git://git.example.com/ledger.git', version: '1.0' }],
    });
    const read = await api.get(`/services/${res.body.id}`, { token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it('needs only name, project_id and environment_id; everything else defaults to null or empty', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const res = await api.post('/services', { name: 'bare', project_id: projectId, environment_id: envId }, { token });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      category: null,
      port: null,
      provider: null,
      links: [],
      tags: [],
      repository_deps: [],
      type: 'serverless',
    });
  });

  it.each([
    ['repository_url', { repository_url: 'ftp://example.com/x.git' }],
    ['repository_url', { repository_url: 'http://example.com/x.git' }],
    ['links', { links: ['https://ok.example.com', 'mailto:ops@example.com'] }],
    ['category', { category: 'x'.repeat(65) }],
    ['provider', { provider: 'ibm' }],
    ['port', { port: 0 }],
    ['port', { port: 65536 }],
    ['port', { port: 80.5 }],
    ['service_floor_id', { service_floor_id: 'not-a-uuid' }],
    ['name', { name: '' }],
  ])('refuses an invalid %s with 422, before any lookup', async (field, fields) => {
    const user = await signUp(api);
    // A project that does not exist: validation answers before the lookup could say 404.
    const res = await api.post(
      '/services',
      { name: 'x', project_id: randomUUID(), environment_id: randomUUID(), ...fields },
      { token: user.token },
    );
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc[1])).toContain(field);
  });

  it('accepts a category of exactly 64 characters and every supported provider', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    for (const provider of ['aws', 'azure', 'gcp', 'digitalocean', 'hetzner', 'ovh', 'linode', 'on-premise']) {
      const s = await createService(api, token, projectId, envId, { provider, category: 'c'.repeat(64) });
      expect(s.provider).toBe(provider);
    }
  });

  it('refuses a non-member with 404 Project not found, identical to an unknown project', async () => {
    const { projectId, envId } = await ownerWithEnv(api);
    const stranger = await signUp(api);
    const foreign = await api.post(
      '/services',
      { name: 'x', project_id: projectId, environment_id: envId },
      { token: stranger.token },
    );
    const unknown = await api.post(
      '/services',
      { name: 'x', project_id: randomUUID(), environment_id: envId },
      { token: stranger.token },
    );
    expectSameNotFound(foreign, unknown, 'Project not found');
  });

  it('refuses an environment of another project (or none) with 400', async () => {
    const { token, projectId } = await ownerWithEnv(api);
    const other = await ownerWithEnv(api);
    for (const environment_id of [other.envId, randomUUID()]) {
      const res = await api.post('/services', { name: 'x', project_id: projectId, environment_id }, { token });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: 'Environment not found or does not belong to project' });
    }
  });

  it('lets the owner, an administrator and a manager create; a viewer and a member without a role get 403', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const [admin, manager, viewer, plain] = [
      await signUp(api),
      await signUp(api),
      await signUp(api),
      await signUp(api),
    ];
    await grantRole(api, token, envId, admin.id, 'administrator');
    await grantRole(api, token, envId, manager.id, 'manager');
    await grantRole(api, token, envId, viewer.id, 'viewer');
    // A manager elsewhere is a member here without a role.
    const otherEnv = await newEnv(api, token, projectId);
    await grantRole(api, token, otherEnv, plain.id, 'manager');
    for (const u of [admin, manager]) {
      const res = await api.post(
        '/services',
        { name: 'ok', project_id: projectId, environment_id: envId },
        { token: u.token },
      );
      expect(res.status).toBe(201);
      expect(res.body.owner_user_id).toBe(u.id);
    }
    for (const u of [viewer, plain]) {
      const res = await api.post(
        '/services',
        { name: 'no', project_id: projectId, environment_id: envId },
        { token: u.token },
      );
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'Insufficient permissions to create service in this environment' });
    }
  });

  it('derives type from the linked floor and resolves group and subgroup names', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const floor = await createFloor(api, token, projectId, envId, { type: 'container', hostname: 'node-1' });
    const groupId = await putGroup(projectId, envId, 'Payments');
    const subgroupId = await putSubgroup(projectId, envId, groupId, 'Gateways');
    const s = await createService(api, token, projectId, envId, {
      service_floor_id: floor.id,
      group_id: groupId,
      subgroup_id: subgroupId,
    });
    expect(s).toMatchObject({ type: 'container', group_name: 'Payments', subgroup_name: 'Gateways' });
    // The type follows the floor.
    expect((await api.patch(`/service-floors/${floor.id}`, { type: 'baremetal' }, { token })).status).toBe(200);
    expect((await api.get(`/services/${s.id}`, { token })).body.type).toBe('baremetal');
    const listed = await api.get(`/services?project_id=${projectId}&environment_id=${envId}`, { token });
    expect(listed.body.find((x: { id: string }) => x.id === s.id)).toMatchObject({
      type: 'baremetal',
      group_name: 'Payments',
      subgroup_name: 'Gateways',
    });
    // type is read-only.
    const patched = await api.patch(`/services/${s.id}`, { type: 'vm' }, { token });
    expect(patched.body.type).toBe('baremetal');
  });

  it('refuses references that are not live in the same environment with 400', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const otherEnv = await newEnv(api, token, projectId);
    const elsewhere = await createFloor(api, token, projectId, otherEnv);
    const groupElsewhere = await putGroup(projectId, otherEnv, 'Elsewhere');
    const deletedGroup = await putGroup(projectId, envId, 'Gone', { deleted_at: new Date().toISOString() });
    const groupA = await putGroup(projectId, envId, 'A');
    const groupB = await putGroup(projectId, envId, 'B');
    const subOfA = await putSubgroup(projectId, envId, groupA, 'A1');
    const cases: [Record<string, unknown>, string][] = [
      [{ service_floor_id: randomUUID() }, 'Service floor not found in this environment'],
      [{ service_floor_id: elsewhere.id }, 'Service floor not found in this environment'],
      [{ group_id: groupElsewhere }, 'Group not found in this environment'],
      [{ group_id: deletedGroup }, 'Group not found in this environment'],
      [{ subgroup_id: randomUUID() }, 'Subgroup not found in this environment'],
      [{ group_id: groupB, subgroup_id: subOfA }, "Subgroup does not belong to the service's group"],
      [{ responsible_project_user_id: randomUUID() }, 'Responsible project user not found in this project'],
      [{ responsible_user_id: randomUUID() }, 'Responsible user is not a member of this project'],
    ];
    for (const [fields, detail] of cases) {
      const res = await api.post(
        '/services',
        { name: 'x', project_id: projectId, environment_id: envId, ...fields },
        { token },
      );
      expect(res.status, JSON.stringify(fields)).toBe(400);
      expect(res.body).toEqual({ detail });
    }
    const s = await createService(api, token, projectId, envId);
    const patch = await api.patch(`/services/${s.id}`, { service_floor_id: elsewhere.id }, { token });
    expect(patch.status).toBe(400);
    expect(patch.body).toEqual({ detail: 'Service floor not found in this environment' });
  });

  it('accepts a responsible user who is a member of the project', async () => {
    const { owner, token, projectId, envId } = await ownerWithEnv(api);
    const s = await createService(api, token, projectId, envId, { responsible_user_id: owner.id });
    expect(s.responsible_user_id).toBe(owner.id);
  });
});

describe('GET /services', () => {
  it('lists an environment by name with each filter', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const a = await createService(api, token, projectId, envId, {
      name: 'Orders API',
      tags: ['core', 'api'],
      programming_language: 'Python',
      provider: 'aws',
      provider_region: 'eu-west-1',
    });
    const b = await createService(api, token, projectId, envId, {
      name: 'orders-worker',
      tags: ['Batch'],
      programming_language: 'python',
      provider: 'gcp',
      provider_zone: 'europe-west4-b',
    });
    const c = await createService(api, token, projectId, envId, {
      name: 'Billing',
      tags: ['core'],
      programming_language: 'Go',
      provider: 'hetzner',
      provider_region: 'fsn1',
    });
    const base = `/services?project_id=${projectId}&environment_id=${envId}`;
    const names = async (q: string) => {
      const res = await api.get(base + q, { token });
      expect(res.status, res.text).toBe(200);
      return res.body.map((s: { name: string }) => s.name);
    };
    expect(await names('')).toEqual(['Billing', 'Orders API', 'orders-worker']);
    expect(await names('&name=ORDERS')).toEqual(['Orders API', 'orders-worker']);
    expect(await names('&tags=core')).toEqual(['Billing', 'Orders API']);
    expect(await names('&tags=batch&tags=api')).toEqual(['Orders API', 'orders-worker']);
    expect(await names('&language=PYTHON')).toEqual(['Orders API', 'orders-worker']);
    expect(await names('&language=pyth')).toEqual([]);
    expect(await names('&location=EUROPE')).toEqual(['orders-worker']);
    expect(await names('&location=eu-west')).toEqual(['Orders API']);
    expect(await names('&location=hetz')).toEqual(['Billing']);
    expect(await names('&limit=2')).toEqual(['Billing', 'Orders API']);
    expect(await names('&limit=2&offset=2')).toEqual(['orders-worker']);
    expect(await names('&name=orders&tags=core')).toEqual(['Orders API']);
    expect([a.id, b.id, c.id]).toHaveLength(3);
  });

  it('applies the default limit of 200 and refuses limits outside 1..1000 and negative offsets', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Business');
    await Promise.all(
      Array.from({ length: 201 }, (_, i) =>
        createService(api, token, projectId, envId, { name: `s-${String(i).padStart(3, '0')}` }),
      ),
    );
    const base = `/services?project_id=${projectId}&environment_id=${envId}`;
    const all = await api.get(base, { token });
    expect(all.body).toHaveLength(200);
    expect((await api.get(`${base}&limit=1000`, { token })).body).toHaveLength(201);
    for (const q of ['&limit=0', '&limit=1001', '&offset=-1', '&limit=abc']) {
      const res = await api.get(base + q, { token });
      expect(res.status, q).toBe(422);
    }
  });

  it('includes soft-deleted services only with updated_since, and sets X-Sync-Timestamp', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const kept = await createService(api, token, projectId, envId, { name: 'kept' });
    const gone = await createService(api, token, projectId, envId, { name: 'gone' });
    const since = new Date(Date.now() - 60_000).toISOString();
    expect((await api.delete(`/services/${gone.id}`, undefined, { token })).status).toBe(204);
    const base = `/services?project_id=${projectId}&environment_id=${envId}`;
    const live = await api.get(base, { token });
    expect(live.body.map((s: { id: string }) => s.id)).toEqual([kept.id]);
    expect(live.headers.get('x-sync-timestamp')).toMatch(/^\d{4}-\d\d-\d\dT/); // every call hands out a cursor
    const sync = await api.get(`${base}&updated_since=${encodeURIComponent(since)}`, { token });
    expect(sync.body.map((s: { name: string; deleted_at: string | null }) => [s.name, s.deleted_at !== null])).toEqual([
      ['gone', true],
      ['kept', false],
    ]);
    expect(sync.headers.get('x-sync-timestamp')).toMatch(/^\d{4}-\d\d-\d\dT/);
    const later = await api.get(
      `${base}&updated_since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
      { token },
    );
    expect(later.body).toEqual([]);
  });

  it('requires project_id and environment_id, and refuses an environment outside the project with 400', async () => {
    const { token, projectId } = await ownerWithEnv(api);
    const other = await ownerWithEnv(api);
    expect((await api.get(`/services?project_id=${projectId}`, { token })).status).toBe(422);
    const res = await api.get(`/services?project_id=${projectId}&environment_id=${other.envId}`, { token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Environment not found or does not belong to project' });
    const stranger = await signUp(api);
    const foreign = await api.get(`/services?project_id=${other.projectId}&environment_id=${other.envId}`, {
      token: stranger.token,
    });
    const unknown = await api.get(`/services?project_id=${randomUUID()}&environment_id=${other.envId}`, {
      token: stranger.token,
    });
    expectSameNotFound(foreign, unknown, 'Project not found');
  });

  it('is readable by a viewer', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const viewer = await signUp(api);
    await grantRole(api, token, envId, viewer.id, 'viewer');
    const s = await createService(api, token, projectId, envId);
    const res = await api.get(`/services?project_id=${projectId}&environment_id=${envId}`, { token: viewer.token });
    expect(res.body.map((x: { id: string }) => x.id)).toEqual([s.id]);
    expect((await api.get(`/services/${s.id}`, { token: viewer.token })).status).toBe(200);
  });
});

describe('/services/{service_id}', () => {
  it('answers unknown and foreign ids with byte-identical 404s on every route', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const s = await createService(api, token, projectId, envId);
    const stranger = await ownerWithEnv(api);
    const unknown = randomUUID();
    const calls: [string, string, unknown][] = [
      ['GET', '', undefined],
      ['PATCH', '', { name: 'x' }],
      ['DELETE', '', undefined],
      ['GET', '/repository-deps', undefined],
    ];
    for (const [method, suffix, body] of calls) {
      const foreign = await api.call(method, `/services/${s.id}${suffix}`, body, { token: stranger.token });
      const missing = await api.call(method, `/services/${unknown}${suffix}`, body, { token: stranger.token });
      expectSameNotFound(foreign, missing, 'Service not found');
    }
    // A floor's id is not a service id.
    const floor = await createFloor(api, token, projectId, envId);
    expectSameNotFound(
      await api.get(`/services/${floor.id}`, { token }),
      await api.get(`/services/${unknown}`, { token }),
      'Service not found',
    );
  });

  it('changes only the given fields, ignores project_id, environment_id and read-only fields, and validates like create', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const otherEnv = await newEnv(api, token, projectId);
    const s = await createService(api, token, projectId, envId, { name: 'api', port: 80, tags: ['a'] });
    const res = await api.patch(
      `/services/${s.id}`,
      {
        name: 'api-v2',
        port: 443,
        project_id: randomUUID(),
        environment_id: otherEnv,
        owner_user_id: randomUUID(),
        group_name: 'x',
      },
      { token },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      name: 'api-v2',
      port: 443,
      tags: ['a'],
      project_id: projectId,
      environment_id: envId,
      owner_user_id: s.owner_user_id,
      group_name: null,
    });
    expect(res.body.updated_at >= s.updated_at).toBe(true);
    const cleared = await api.patch(`/services/${s.id}`, { port: null, tags: null }, { token });
    expect(cleared.body).toMatchObject({ port: null, tags: [] });
    for (const body of [
      { repository_url: 'svn://x' },
      { links: ['ftp://x'] },
      { category: 'c'.repeat(65) },
      { provider: 'oracle' },
      { port: 70000 },
      { name: '' },
    ]) {
      const bad = await api.patch(`/services/${randomUUID()}`, body, { token });
      expect(bad.status, JSON.stringify(body)).toBe(422);
    }
    expect((await api.get(`/services/${s.id}`, { token })).body).toMatchObject({ name: 'api-v2', port: null });
  });

  it('lets a viewer read but not change or delete', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const viewer = await signUp(api);
    const manager = await signUp(api);
    await grantRole(api, token, envId, viewer.id, 'viewer');
    await grantRole(api, token, envId, manager.id, 'manager');
    const s = await createService(api, token, projectId, envId);
    for (const res of [
      await api.patch(`/services/${s.id}`, { name: 'x' }, { token: viewer.token }),
      await api.delete(`/services/${s.id}`, undefined, { token: viewer.token }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'Insufficient permissions to manage services in this environment' });
    }
    expect((await api.patch(`/services/${s.id}`, { name: 'by-manager' }, { token: manager.token })).status).toBe(200);
    expect((await api.delete(`/services/${s.id}`, undefined, { token: manager.token })).status).toBe(204);
  });

  it('moves a service between floors and groups, keeping type and names right', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const vm = await createFloor(api, token, projectId, envId, { type: 'vm' });
    const metal = await createFloor(api, token, projectId, envId, { type: 'baremetal' });
    const g1 = await putGroup(projectId, envId, 'One');
    const g2 = await putGroup(projectId, envId, 'Two');
    const s = await createService(api, token, projectId, envId, { service_floor_id: vm.id, group_id: g1 });
    const moved = await api.patch(`/services/${s.id}`, { service_floor_id: metal.id, group_id: g2 }, { token });
    expect(moved.body).toMatchObject({ type: 'baremetal', group_name: 'Two' });
    expect((await api.get(`/services/${s.id}`, { token })).body).toMatchObject({
      type: 'baremetal',
      group_name: 'Two',
      service_floor_id: metal.id,
    });
    const off = await api.patch(`/services/${s.id}`, { service_floor_id: null, group_id: null }, { token });
    expect(off.body).toMatchObject({ type: 'serverless', group_name: null, service_floor_id: null, group_id: null });
    expect((await api.get(`/services/${s.id}`, { token })).body).toMatchObject({
      type: 'serverless',
      group_name: null,
    });
  });

  it('shows a deleted group as no group name', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const g = await putGroup(projectId, envId, 'Temporary');
    const s = await createService(api, token, projectId, envId, { group_id: g });
    expect((await api.get(`/services/${s.id}`, { token })).body.group_name).toBe('Temporary');
    await softDelete(keys.group(projectId, envId, g));
    expect((await api.get(`/services/${s.id}`, { token })).body).toMatchObject({ group_id: g, group_name: null });
  });

  it('deletes softly, with its connections, links and network attachments, and gives the plan slot back', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const s = await createService(api, token, projectId, envId);
    const other = await createService(api, token, projectId, envId);
    const floor = await createFloor(api, token, projectId, envId);
    const net = await api.post(
      '/networks',
      { project_id: projectId, environment_id: envId, name: 'lan', cidr: '10.1.0.0/16' },
      { token },
    );
    expect(
      (await api.patch(`/attachments/services/${s.id}/networks`, { network_ids: [net.body.id] }, { token })).status,
    ).toBe(200);
    const chain = await putChain(projectId, envId, 3);
    const edges = [
      await putConnection(projectId, envId, ['service', s.id], ['service', other.id], chain.id),
      await putConnection(projectId, envId, ['service', other.id], ['service', s.id], chain.id),
      await putConnection(projectId, envId, ['floor', floor.id], ['service', s.id]),
      await putLink(projectId, envId, s.id, other.id),
      await putLink(projectId, envId, other.id, s.id),
    ];
    const untouched = [
      await putConnection(projectId, envId, ['service', other.id], ['floor', floor.id], chain.id),
      await putLink(projectId, envId, other.id, randomUUID()),
    ];
    const before = (await readItem(keys.project(projectId)))!.service_count as number;
    expect((await api.delete(`/services/${s.id}`, undefined, { token })).status).toBe(204);
    expectSameNotFound(
      await api.get(`/services/${s.id}`, { token }),
      await api.get(`/services/${randomUUID()}`, { token }),
      'Service not found',
    );
    expect((await api.delete(`/services/${s.id}`, undefined, { token })).status).toBe(404);
    expect((await api.get(`/attachments/services/${s.id}/networks`, { token })).status).toBe(404);
    for (const key of edges) expect((await readItem(key))!.deleted_at).not.toBeNull();
    for (const key of untouched) expect((await readItem(key))!.deleted_at).toBeNull();
    // Two members left the chain with the service.
    expect((await readItem(chain.key))!.connection_count).toBe(1);
    const stored = await readItem(keys.service(projectId, envId, s.id));
    expect(stored).toMatchObject({ network_ids: [] });
    expect(stored!.deleted_at).not.toBeNull();
    expect((await readItem(keys.project(projectId)))!.service_count).toBe(before - 1);
    expect((await readItem(keys.environment(projectId, envId)))!.service_count).toBe(before - 1);
  });

  it('answers declared repository dependencies', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const deps = [
      { name: 'ledger', repository_url: 'https://git.example.com/ledger.git', version: '1.4.0' },
      { name: 'shared-protos' },
    ];
    const s = await createService(api, token, projectId, envId, { repository_deps: deps });
    const res = await api.get(`/services/${s.id}/repository-deps`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([deps[0], { name: 'shared-protos', repository_url: null, version: null }]);
    const none = await createService(api, token, projectId, envId);
    expect((await api.get(`/services/${none.id}/repository-deps`, { token })).body).toEqual([]);
    const bad = await api.post(
      '/services',
      { name: 'x', project_id: projectId, environment_id: envId, repository_deps: [{ repository_url: 'https://x' }] },
      { token },
    );
    expect(bad.status).toBe(422);
  });

  it('reads a service on a floor in 2 DynamoDB round trips after the token check', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const floor = await createFloor(api, token, projectId, envId, { type: 'vm' });
    const group = await putGroup(projectId, envId, 'Counted');
    const s = await createService(api, token, projectId, envId, { service_floor_id: floor.id, group_id: group });
    const calls = countCalls(ddb());
    calls.reset();
    const res = await api.get(`/services/${s.id}`, { token });
    expect(res.body).toMatchObject({ type: 'vm', group_name: 'Counted' });
    // The token check (one BatchGet), then locate (GetItem) and one BatchGet with the floor and group.
    expect(calls.byCommand()).toEqual({ BatchGetItemCommand: 2, GetItemCommand: 1 });
  });

  it('still resolves type and group names when the item was changed by another writer', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const vm = await createFloor(api, token, projectId, envId, { type: 'vm' });
    const metal = await createFloor(api, token, projectId, envId, { type: 'baremetal' });
    const group = await putGroup(projectId, envId, 'Imported');
    const s = await createService(api, token, projectId, envId, { service_floor_id: vm.id });
    // An import rewriting the item directly leaves the lookup's hints behind.
    await ddb().send(
      new UpdateCommand({
        TableName: ref.stack.config.TABLE_NAME,
        Key: keys.service(projectId, envId, s.id),
        UpdateExpression: 'SET service_floor_id = :f, group_id = :g',
        ExpressionAttributeValues: { ':f': metal.id, ':g': group },
      }),
    );
    expect((await api.get(`/services/${s.id}`, { token })).body).toMatchObject({
      type: 'baremetal',
      group_name: 'Imported',
    });
  });

  it('hides the services of a deleted environment', async () => {
    const { token, projectId } = await ownerWithEnv(api);
    const envId = await newEnv(api, token, projectId);
    const s = await createService(api, token, projectId, envId);
    expect((await api.delete(`/environments/${envId}`, undefined, { token })).status).toBe(204);
    expectSameNotFound(
      await api.get(`/services/${s.id}`, { token }),
      await api.get(`/services/${randomUUID()}`, { token }),
      'Service not found',
    );
    expect((await api.get(`/services?project_id=${projectId}&environment_id=${envId}`, { token })).status).toBe(400);
  });
});
