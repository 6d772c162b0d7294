import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { grantRole } from '../helpers/tenancy.ts';
import { addEnv, addFloor, addService, connect, ownerWithEnv } from '../helpers/topology.ts';

const ref = useTestStack();
const api = client(() => ref.stack.url);

/** An environment with services lb → api → db on floor vm. */
async function catalog() {
  const base = await ownerWithEnv(api);
  const { owner, projectId, envId } = base;
  const [lb, app, db] = [
    await addService(api, owner.token, projectId, envId, 'lb'),
    await addService(api, owner.token, projectId, envId, 'api'),
    await addService(api, owner.token, projectId, envId, 'db'),
  ];
  const vm = await addFloor(api, owner.token, projectId, envId, 'vm-1');
  const scope = { project_id: projectId, environment_id: envId };
  const list = async (query = '') =>
    (
      await api.get(`/service-connections?project_id=${projectId}&environment_id=${envId}${query}`, {
        token: owner.token,
      })
    ).body as Record<string, unknown>[];
  return { ...base, lb, app, db, vm, scope, list };
}

const svc = (a: string, b: string, extra: Record<string, unknown> = {}) => ({
  a_type: 'service',
  a_id: a,
  b_type: 'service',
  b_id: b,
  ...extra,
});

describe('POST /service-connections/batch', () => {
  it('creates a chain whose connections share one generated chain_id and the group_kind, each keeping its own direction and name', async () => {
    const { owner, lb, app, db, vm, scope, list } = await catalog();
    const res = await api.post(
      '/service-connections/batch',
      {
        ...scope,
        group_kind: 'chain',
        items: [
          svc(lb, app, { direction: 'a_to_b', name: 'http' }),
          svc(app, db, { direction: 'both' }),
          { a_type: 'service', a_id: db, b_type: 'floor', b_id: vm },
        ],
      },
      { token: owner.token },
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body).toHaveLength(3);
    const chainId = res.body[0].chain_id;
    expect(chainId).toMatch(/^[0-9a-f-]{36}$/);
    for (const c of res.body) expect(c).toMatchObject({ chain_id: chainId, group_kind: 'chain', ...scope });
    expect(res.body.map((c: { direction: string }) => c.direction)).toEqual(['a_to_b', 'both', 'none']);
    expect(res.body.map((c: { name: string | null }) => c.name)).toEqual(['http', null, null]);
    expect(res.body.map((c: { b_id: string }) => c.b_id)).toEqual([app, db, vm]);
    expect(new Set(res.body.map((c: { id: string }) => c.id)).size).toBe(3);
    // Listed in the order given (they share created_at).
    expect((await list(`&chain_id=${chainId}`)).map((c) => c.id)).toEqual(res.body.map((c: { id: string }) => c.id));
  });

  it('creates a hub; a second batch gets a chain_id of its own', async () => {
    const { owner, lb, app, db, vm, scope } = await catalog();
    const hub = await api.post(
      '/service-connections/batch',
      {
        ...scope,
        group_kind: 'hub',
        items: [
          svc(app, lb),
          svc(app, db),
          { a_type: 'service', a_id: app, b_type: 'floor', b_id: vm, direction: 'b_to_a' },
        ],
      },
      { token: owner.token },
    );
    expect(hub.status, hub.text).toBe(201);
    expect(new Set(hub.body.map((c: { chain_id: string }) => c.chain_id)).size).toBe(1);
    expect(hub.body.every((c: { group_kind: string }) => c.group_kind === 'hub')).toBe(true);
    const other = await api.post(
      '/service-connections/batch',
      { ...scope, group_kind: 'chain', items: [svc(lb, db)] },
      { token: owner.token },
    );
    expect(other.body[0].chain_id).not.toBe(hub.body[0].chain_id);
  });

  it('is all or nothing: one missing end refuses the whole batch', async () => {
    const { owner, lb, app, db, scope, list } = await catalog();
    const res = await api.post(
      '/service-connections/batch',
      {
        ...scope,
        group_kind: 'chain',
        items: [svc(lb, app), svc(app, db), { a_type: 'service', a_id: db, b_type: 'floor', b_id: randomUUID() }],
      },
      { token: owner.token },
    );
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'ServiceFloor not found' });
    expect(await list()).toEqual([]);
  });

  it('refuses bad batches with 422 before any lookup: self-connection, size, group_kind', async () => {
    const user = await signUp(api);
    const scope = { project_id: randomUUID(), environment_id: randomUUID() };
    const [x, y] = [randomUUID(), randomUUID()];
    const self = await api.post(
      '/service-connections/batch',
      { ...scope, group_kind: 'chain', items: [svc(x, y), svc(y, y)] },
      { token: user.token },
    );
    expect(self.status).toBe(422);
    expect(self.body.detail).toEqual([
      { loc: ['body', 'items', 1, 'b_id'], msg: 'An entity may not be connected to itself', type: 'custom' },
    ]);
    const tooMany = await api.post(
      '/service-connections/batch',
      { ...scope, group_kind: 'hub', items: Array.from({ length: 25 }, () => svc(x, randomUUID())) },
      { token: user.token },
    );
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail[0].loc).toEqual(['body', 'items']);
    const empty = await api.post(
      '/service-connections/batch',
      { ...scope, group_kind: 'hub', items: [] },
      { token: user.token },
    );
    expect(empty.status).toBe(422);
    const kind = await api.post(
      '/service-connections/batch',
      { ...scope, group_kind: 'mesh', items: [svc(x, y)] },
      { token: user.token },
    );
    expect(kind.status).toBe(422);
    expect(kind.body.detail[0].loc).toEqual(['body', 'group_kind']);
    const noKind = await api.post(
      '/service-connections/batch',
      { ...scope, items: [svc(x, y)] },
      { token: user.token },
    );
    expect(noKind.status).toBe(422);
    expect(noKind.body.detail[0].loc).toEqual(['body', 'group_kind']);
  });

  it('accepts the largest batch (24 connections: a hub with 24 spokes)', async () => {
    const { owner, projectId, envId, app, scope } = await catalog();
    const spokes = [];
    for (let i = 0; i < 24; i++)
      spokes.push(
        i % 2
          ? await addService(api, owner.token, projectId, envId, `spoke-${i}`)
          : await addFloor(api, owner.token, projectId, envId, `spoke-${i}`),
      );
    const items = spokes.map((id, i) => ({
      a_type: 'service',
      a_id: app,
      b_type: i % 2 ? 'service' : 'floor',
      b_id: id,
      direction: 'a_to_b',
    }));
    const res = await api.post(
      '/service-connections/batch',
      { ...scope, group_kind: 'hub', items },
      { token: owner.token },
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body).toHaveLength(24);
  });

  it('refuses non-members (404), a foreign environment (400) and viewers (403); a manager may', async () => {
    const { owner, envId, lb, app, scope } = await catalog();
    const body = { ...scope, group_kind: 'chain', items: [svc(lb, app)] };
    const stranger = await signUp(api);
    const nonMember = await api.post('/service-connections/batch', body, { token: stranger.token });
    expect(nonMember.status).toBe(404);
    expect(nonMember.body).toEqual({ detail: 'Project not found' });
    const other = await ownerWithEnv(api);
    const env = await api.post(
      '/service-connections/batch',
      { ...body, environment_id: other.envId },
      { token: owner.token },
    );
    expect(env.status).toBe(400);
    expect(env.body).toEqual({ detail: 'Environment not found or does not belong to project' });
    const viewer = await signUp(api);
    await grantRole(api, owner.token, envId, viewer.id, 'viewer');
    const refused = await api.post('/service-connections/batch', body, { token: viewer.token });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'Missing permission: connections.manage' });
    const manager = await signUp(api);
    await grantRole(api, owner.token, envId, manager.id, 'manager');
    expect((await api.post('/service-connections/batch', body, { token: manager.token })).status).toBe(201);
  });
});

describe('joining a chain with chain_id on POST /service-connections', () => {
  it('adds a connection to an existing chain, which takes the chain’s group_kind', async () => {
    const { owner, lb, app, db, scope, list } = await catalog();
    const hub = await api.post(
      '/service-connections/batch',
      { ...scope, group_kind: 'hub', items: [svc(app, lb)] },
      { token: owner.token },
    );
    const chainId = hub.body[0].chain_id;
    const joined = await connect(api, owner.token, {
      ...scope,
      ...svc(app, db, { direction: 'a_to_b' }),
      chain_id: chainId,
    });
    expect(joined).toMatchObject({ chain_id: chainId, group_kind: 'hub', direction: 'a_to_b' });
    expect((await list(`&chain_id=${chainId}`)).map((c) => c.id)).toEqual([hub.body[0].id, joined.id]);
  });

  it('refuses an unknown chain, or one of another environment, with 404 Chain not found', async () => {
    const { owner, projectId, lb, app, scope } = await catalog();
    const unknown = await api.post(
      '/service-connections',
      { ...scope, ...svc(lb, app), chain_id: randomUUID() },
      { token: owner.token },
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: 'Chain not found' });
    const staging = await addEnv(api, owner.token, projectId);
    const [s1, s2] = [
      await addService(api, owner.token, projectId, staging, 's1'),
      await addService(api, owner.token, projectId, staging, 's2'),
    ];
    const there = await api.post(
      '/service-connections/batch',
      { project_id: projectId, environment_id: staging, group_kind: 'chain', items: [svc(s1, s2)] },
      { token: owner.token },
    );
    const cross = await api.post(
      '/service-connections',
      { ...scope, ...svc(lb, app), chain_id: there.body[0].chain_id },
      { token: owner.token },
    );
    expect(cross.status).toBe(404);
    expect(cross.text).toBe(unknown.text);
  });

  it('caps a chain at 50 connections; deleting a member makes room again', async () => {
    const { owner, app, scope, projectId, envId } = await catalog();
    // 52 distinct pairs (duplicates are refused): the api service to 13 floors, in each of the four directions.
    const floors: string[] = [];
    for (let i = 0; i < 13; i++) floors.push(await addFloor(api, owner.token, projectId, envId, `host-${i}`));
    const pairs = floors.flatMap((f) =>
      ['none', 'a_to_b', 'b_to_a', 'both'].map((direction) => ({
        a_type: 'service',
        a_id: app,
        b_type: 'floor',
        b_id: f,
        direction,
      })),
    );
    const batch = await api.post(
      '/service-connections/batch',
      { ...scope, group_kind: 'chain', items: pairs.slice(0, 24) },
      { token: owner.token },
    );
    expect(batch.status, batch.text).toBe(201);
    const chainId = batch.body[0].chain_id;
    for (const pair of pairs.slice(24, 50)) await connect(api, owner.token, { ...scope, ...pair, chain_id: chainId });
    const full = await api.post(
      '/service-connections',
      { ...scope, ...pairs[50], chain_id: chainId },
      { token: owner.token },
    );
    expect(full.status).toBe(400);
    expect(full.body).toEqual({ detail: 'Chain is full (max 50 connections)' });
    expect(
      (await api.delete(`/service-connections/${batch.body[0].id}`, undefined, { token: owner.token })).status,
    ).toBe(204);
    await connect(api, owner.token, { ...scope, ...pairs[0], chain_id: chainId }); // a deleted connection's pair is free again
    // A full chain is still patched and deleted in one transaction.
    const patched = await api.patch(
      `/service-connections/chains/${chainId}`,
      { name: 'uplinks' },
      { token: owner.token },
    );
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toHaveLength(50);
    expect((await api.delete(`/service-connections/chains/${chainId}`, undefined, { token: owner.token })).status).toBe(
      204,
    );
  });
});

describe('PATCH and DELETE /service-connections/chains/{chain_id}', () => {
  async function chainOf3() {
    const c = await catalog();
    const res = await api.post(
      '/service-connections/batch',
      {
        ...c.scope,
        group_kind: 'chain',
        items: [
          svc(c.lb, c.app, { direction: 'a_to_b', name: 'front' }),
          svc(c.app, c.db, { direction: 'b_to_a' }),
          { a_type: 'service', a_id: c.db, b_type: 'floor', b_id: c.vm },
        ],
      },
      { token: c.owner.token },
    );
    expect(res.status, res.text).toBe(201);
    const loose = await connect(api, c.owner.token, { ...c.scope, ...svc(c.lb, c.db) });
    return { ...c, chainId: res.body[0].chain_id as string, members: res.body as { id: string }[], loose };
  }

  it('sets the direction, or the name, of every connection of the chain', async () => {
    const { owner, chainId, members, loose, list } = await chainOf3();
    const res = await api.patch(
      `/service-connections/chains/${chainId}`,
      { direction: 'both' },
      { token: owner.token },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.map((c: { id: string }) => c.id)).toEqual(members.map((m) => m.id));
    expect(res.body.map((c: { direction: string }) => c.direction)).toEqual(['both', 'both', 'both']);
    expect(res.body.map((c: { name: string | null }) => c.name)).toEqual(['front', null, null]);
    const named = await api.patch(
      `/service-connections/chains/${chainId}`,
      { name: 'checkout path' },
      { token: owner.token },
    );
    expect(
      named.body.every(
        (c: { name: string; direction: string }) => c.name === 'checkout path' && c.direction === 'both',
      ),
    ).toBe(true);
    const all = await list();
    expect(
      all.filter((c) => c.chain_id === chainId).every((c) => c.direction === 'both' && c.name === 'checkout path'),
    ).toBe(true);
    expect(all.find((c) => c.id === loose.id)).toMatchObject({ direction: 'none', name: null });
    expect((await api.patch(`/service-connections/chains/${chainId}`, {}, { token: owner.token })).status).toBe(422);
  });

  it('keeps working when a service of the chain is deleted (its connections leave the chain)', async () => {
    const { owner, chainId, members, app, scope, list } = await chainOf3();
    const del = await api.delete(`/services/${app}`, undefined, { token: owner.token });
    expect(del.status, del.text).toBe(204);
    // lb–api and api–db went with the service; db–vm remains.
    expect((await list(`&chain_id=${chainId}`)).map((c) => c.id)).toEqual([members[2].id]);
    const patched = await api.patch(
      `/service-connections/chains/${chainId}`,
      { direction: 'a_to_b' },
      { token: owner.token },
    );
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.map((c: { id: string }) => c.id)).toEqual([members[2].id]);
    const [s1, s2] = [
      await addService(api, owner.token, scope.project_id, scope.environment_id, 'x'),
      await addService(api, owner.token, scope.project_id, scope.environment_id, 'y'),
    ];
    await connect(api, owner.token, { ...scope, ...svc(s1, s2), chain_id: chainId });
    expect((await api.delete(`/service-connections/chains/${chainId}`, undefined, { token: owner.token })).status).toBe(
      204,
    );
    expect(await list(`&chain_id=${chainId}`)).toEqual([]);
  });

  it('deletes every connection of the chain, and only those', async () => {
    const { owner, chainId, loose, list } = await chainOf3();
    expect((await api.delete(`/service-connections/chains/${chainId}`, undefined, { token: owner.token })).status).toBe(
      204,
    );
    expect((await list()).map((c) => c.id)).toEqual([loose.id]);
    const again = await api.delete(`/service-connections/chains/${chainId}`, undefined, { token: owner.token });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ detail: 'Chain not found' });
    expect(
      (await api.patch(`/service-connections/chains/${chainId}`, { direction: 'both' }, { token: owner.token })).status,
    ).toBe(404);
  });

  it('answers byte-identical 404s for unknown and foreign chains, 403 to viewers, 422 for a malformed id', async () => {
    const { owner, envId, chainId, loose } = await chainOf3();
    const stranger = await signUp(api);
    const foreign = await api.patch(
      `/service-connections/chains/${chainId}`,
      { direction: 'both' },
      { token: stranger.token },
    );
    const unknown = await api.patch(
      `/service-connections/chains/${randomUUID()}`,
      { direction: 'both' },
      { token: stranger.token },
    );
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(unknown.text);
    expect(
      (await api.delete(`/service-connections/chains/${chainId}`, undefined, { token: stranger.token })).text,
    ).toBe(unknown.text);
    // A connection id is not a chain id.
    expect((await api.delete(`/service-connections/chains/${loose.id}`, undefined, { token: owner.token })).text).toBe(
      unknown.text,
    );
    const viewer = await signUp(api);
    await grantRole(api, owner.token, envId, viewer.id, 'viewer');
    const refused = await api.delete(`/service-connections/chains/${chainId}`, undefined, { token: viewer.token });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'Missing permission: connections.manage' });
    expect(
      (await api.patch(`/service-connections/chains/${chainId}`, { name: 'x' }, { token: viewer.token })).status,
    ).toBe(403);
    expect((await api.delete('/service-connections/chains/not-a-uuid', undefined, { token: owner.token })).status).toBe(
      422,
    );
  });
});
