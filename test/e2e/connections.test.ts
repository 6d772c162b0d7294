import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { grantRole } from '../helpers/tenancy.ts';
import { addEnv, addFloor, addService, connect, ownerWithEnv, removeService } from '../helpers/topology.ts';

const ref = useTestStack();
const api = client(() => ref.stack.url);

/** An environment with two services and a floor. */
async function catalog() {
  const base = await ownerWithEnv(api);
  const { owner, projectId, envId } = base;
  const web = await addService(api, owner.token, projectId, envId, 'web');
  const db = await addService(api, owner.token, projectId, envId, 'db');
  const vm = await addFloor(api, owner.token, projectId, envId, 'vm-1.internal');
  const scope = { project_id: projectId, environment_id: envId };
  return { ...base, web, db, vm, scope };
}

const FIELDS = [
  'a_id',
  'a_type',
  'b_id',
  'b_type',
  'chain_id',
  'created_at',
  'deleted_at',
  'direction',
  'environment_id',
  'group_kind',
  'id',
  'name',
  'project_id',
  'updated_at',
];

describe('POST /service-connections', () => {
  it('connects a service and a floor, direction none by default, in the documented shape', async () => {
    const { owner, web, vm, scope, projectId, envId } = await catalog();
    const res = await api.post(
      '/service-connections',
      { ...scope, a_type: 'service', a_id: web, b_type: 'floor', b_id: vm },
      { token: owner.token },
    );
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(FIELDS);
    expect(res.body).toMatchObject({
      project_id: projectId,
      environment_id: envId,
      a_type: 'service',
      a_id: web,
      b_type: 'floor',
      b_id: vm,
      direction: 'none',
      chain_id: null,
      name: null,
      group_kind: null,
      deleted_at: null,
    });
  });

  it('keeps the given direction and name, service to service and floor to floor', async () => {
    const { owner, projectId, envId, web, db, scope } = await catalog();
    const ss = await connect(api, owner.token, {
      ...scope,
      a_type: 'service',
      a_id: web,
      b_type: 'service',
      b_id: db,
      direction: 'a_to_b',
      name: 'SQL',
    });
    expect(ss).toMatchObject({ direction: 'a_to_b', name: 'SQL' });
    const vm2 = await addFloor(api, owner.token, projectId, envId, 'vm-2');
    const vm3 = await addFloor(api, owner.token, projectId, envId, 'vm-3');
    const ff = await connect(api, owner.token, {
      ...scope,
      a_type: 'floor',
      a_id: vm2,
      b_type: 'floor',
      b_id: vm3,
      direction: 'both',
    });
    expect(ff).toMatchObject({ a_type: 'floor', b_type: 'floor', direction: 'both' });
  });

  it('refuses connecting an entity to itself with 422, before any lookup', async () => {
    const user = await signUp(api);
    const id = randomUUID();
    // Neither the project nor the entity exists: validation answers first.
    const res = await api.post(
      '/service-connections',
      {
        project_id: randomUUID(),
        environment_id: randomUUID(),
        a_type: 'service',
        a_id: id,
        b_type: 'service',
        b_id: id,
      },
      { token: user.token },
    );
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['body', 'b_id'], msg: 'An entity may not be connected to itself', type: 'custom' },
    ]);
  });

  it('validates types, direction, ids and required scope (422)', async () => {
    const { owner, web, db, scope } = await catalog();
    const bad = async (body: Record<string, unknown>, loc: (string | number)[]) => {
      const res = await api.post('/service-connections', body, { token: owner.token });
      expect(res.status, res.text).toBe(422);
      expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    };
    const ok = { ...scope, a_type: 'service', a_id: web, b_type: 'service', b_id: db };
    await bad({ ...ok, a_type: 'network' }, ['body', 'a_type']);
    await bad({ ...ok, direction: 'sideways' }, ['body', 'direction']);
    await bad({ ...ok, b_id: 'not-a-uuid' }, ['body', 'b_id']);
    await bad({ ...ok, chain_id: 'x' }, ['body', 'chain_id']);
    await bad({ ...ok, name: 'x'.repeat(201) }, ['body', 'name']);
    const { environment_id: _e, ...noEnv } = ok;
    await bad(noEnv, ['body', 'environment_id']);
  });

  it('requires both ends to be live entities of the same environment', async () => {
    const { owner, projectId, envId, web, db, vm, scope } = await catalog();
    const body = (b: Record<string, unknown>) => ({ ...scope, a_type: 'service', a_id: web, ...b });
    const unknownService = await api.post('/service-connections', body({ b_type: 'service', b_id: randomUUID() }), {
      token: owner.token,
    });
    expect(unknownService.status).toBe(404);
    expect(unknownService.body).toEqual({ detail: 'Service not found' });
    const unknownFloor = await api.post('/service-connections', body({ b_type: 'floor', b_id: randomUUID() }), {
      token: owner.token,
    });
    expect(unknownFloor.status).toBe(404);
    expect(unknownFloor.body).toEqual({ detail: 'ServiceFloor not found' });
    // A floor id given as a service (wrong type) is not a service.
    const wrongType = await api.post('/service-connections', body({ b_type: 'service', b_id: vm }), {
      token: owner.token,
    });
    expect(wrongType.status).toBe(404);
    expect(wrongType.body).toEqual({ detail: 'Service not found' });
    // An entity of another environment of the same project is refused the same way.
    const staging = await addEnv(api, owner.token, projectId);
    const elsewhere = await addService(api, owner.token, projectId, staging, 'web-staging');
    const crossEnv = await api.post('/service-connections', body({ b_type: 'service', b_id: elsewhere }), {
      token: owner.token,
    });
    expect(crossEnv.status).toBe(404);
    expect(crossEnv.text).toBe(unknownService.text);
    // A deleted service is gone.
    const gone = await addService(api, owner.token, projectId, envId, 'legacy');
    await removeService(api, owner.token, gone);
    const toDeleted = await api.post('/service-connections', body({ b_type: 'service', b_id: gone }), {
      token: owner.token,
    });
    expect(toDeleted.status).toBe(404);
    expect(toDeleted.text).toBe(unknownService.text);
    // Nothing was written by the refusals.
    const list = await api.get(`/service-connections?project_id=${projectId}&environment_id=${envId}`, {
      token: owner.token,
    });
    expect(list.body).toEqual([]);
    expect(
      (await api.post('/service-connections', body({ b_type: 'service', b_id: db }), { token: owner.token })).status,
    ).toBe(201);
  });

  it('answers 404 Project not found to non-members and 400 for an environment outside the project', async () => {
    const { owner, web, db, scope, projectId } = await catalog();
    const stranger = await signUp(api);
    const body = { ...scope, a_type: 'service', a_id: web, b_type: 'service', b_id: db };
    const res = await api.post('/service-connections', body, { token: stranger.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Project not found' });
    const unknown = await api.post(
      '/service-connections',
      { ...body, project_id: randomUUID() },
      { token: owner.token },
    );
    expect(unknown.text).toBe(res.text);
    const other = await ownerWithEnv(api);
    const foreignEnv = await api.post(
      '/service-connections',
      { ...body, environment_id: other.envId },
      { token: owner.token },
    );
    expect(foreignEnv.status).toBe(400);
    expect(foreignEnv.body).toEqual({ detail: 'Environment not found or does not belong to project' });
    const listForeignEnv = await api.get(`/service-connections?project_id=${projectId}&environment_id=${other.envId}`, {
      token: owner.token,
    });
    expect(listForeignEnv.status).toBe(400);
  });

  it('lets a manager connect and refuses a viewer with 403 Missing permission: connections.manage', async () => {
    const { owner, envId, web, db, scope } = await catalog();
    const viewer = await signUp(api);
    await grantRole(api, owner.token, envId, viewer.id, 'viewer');
    const manager = await signUp(api);
    await grantRole(api, owner.token, envId, manager.id, 'manager');
    const body = { ...scope, a_type: 'service', a_id: web, b_type: 'service', b_id: db };
    const refused = await api.post('/service-connections', body, { token: viewer.token });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'Missing permission: connections.manage' });
    const made = await api.post('/service-connections', body, { token: manager.token });
    expect(made.status, made.text).toBe(201);
    // The viewer reads what the manager made.
    const list = await api.get(`/service-connections?project_id=${scope.project_id}&environment_id=${envId}`, {
      token: viewer.token,
    });
    expect(list.status).toBe(200);
    expect(list.body.map((c: { id: string }) => c.id)).toEqual([made.body.id]);
  });
});

describe('GET /service-connections', () => {
  it('lists the environment’s connections, filtered by entity or chain, and syncs deletions with updated_since', async () => {
    const { owner, projectId, envId, web, db, vm, scope } = await catalog();
    const c1 = await connect(api, owner.token, { ...scope, a_type: 'service', a_id: web, b_type: 'service', b_id: db });
    const c2 = await connect(api, owner.token, { ...scope, a_type: 'service', a_id: db, b_type: 'floor', b_id: vm });
    const batch = await api.post(
      '/service-connections/batch',
      { ...scope, group_kind: 'chain', items: [{ a_type: 'service', a_id: web, b_type: 'floor', b_id: vm }] },
      { token: owner.token },
    );
    expect(batch.status, batch.text).toBe(201);
    const q = `/service-connections?project_id=${projectId}&environment_id=${envId}`;
    const ids = (res: { body: { id: string }[] }) => res.body.map((c) => c.id);
    expect(ids(await api.get(q, { token: owner.token }))).toEqual([c1.id, c2.id, batch.body[0].id]);
    expect(ids(await api.get(`${q}&entity_id=${vm}`, { token: owner.token }))).toEqual([c2.id, batch.body[0].id]);
    expect(ids(await api.get(`${q}&entity_id=${web}`, { token: owner.token }))).toEqual([c1.id, batch.body[0].id]);
    expect(ids(await api.get(`${q}&chain_id=${batch.body[0].chain_id}`, { token: owner.token }))).toEqual([
      batch.body[0].id,
    ]);

    // Strictly after the last write above, so only the deletion below is "since".
    const since = new Date(Math.max(Date.now(), Date.parse(batch.body[0].updated_at) + 1)).toISOString();
    expect((await api.delete(`/service-connections/${c1.id}`, undefined, { token: owner.token })).status).toBe(204);
    expect(ids(await api.get(q, { token: owner.token }))).toEqual([c2.id, batch.body[0].id]);
    const sync = await api.get(`${q}&updated_since=${encodeURIComponent(since)}`, { token: owner.token });
    expect(sync.headers.get('x-sync-timestamp')).toBeTruthy();
    expect(sync.body).toHaveLength(1);
    expect(sync.body[0]).toMatchObject({ id: c1.id });
    expect(sync.body[0].deleted_at).not.toBeNull();
  });

  it('requires project_id and environment_id (422)', async () => {
    const user = await signUp(api);
    const res = await api.get(`/service-connections?project_id=${randomUUID()}`, { token: user.token });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['query', 'environment_id']);
  });
});

describe('PATCH and DELETE /service-connections/{connection_id}', () => {
  it('changes direction and name; an empty or invalid change is 422', async () => {
    const { owner, web, db, scope } = await catalog();
    const c = await connect(api, owner.token, {
      ...scope,
      a_type: 'service',
      a_id: web,
      b_type: 'service',
      b_id: db,
      name: 'old',
    });
    const dir = await api.patch(`/service-connections/${c.id}`, { direction: 'b_to_a' }, { token: owner.token });
    expect(dir.status, dir.text).toBe(200);
    expect(dir.body).toMatchObject({ id: c.id, direction: 'b_to_a', name: 'old', a_id: web, b_id: db });
    expect(dir.body.updated_at >= c.updated_at).toBe(true);
    const named = await api.patch(`/service-connections/${c.id}`, { name: 'replication' }, { token: owner.token });
    expect(named.body).toMatchObject({ direction: 'b_to_a', name: 'replication' });
    const cleared = await api.patch(`/service-connections/${c.id}`, { name: null }, { token: owner.token });
    expect(cleared.body.name).toBeNull();
    const list = await api.get(
      `/service-connections?project_id=${scope.project_id}&environment_id=${scope.environment_id}`,
      { token: owner.token },
    );
    expect(list.body[0]).toMatchObject({ direction: 'b_to_a', name: null });
    expect((await api.patch(`/service-connections/${c.id}`, {}, { token: owner.token })).status).toBe(422);
    expect((await api.patch(`/service-connections/${c.id}`, { direction: 'up' }, { token: owner.token })).status).toBe(
      422,
    );
    // Validation precedes lookup: an unknown id with a bad body is 422, not 404.
    expect(
      (await api.patch(`/service-connections/${randomUUID()}`, { direction: 'up' }, { token: owner.token })).status,
    ).toBe(422);
    expect(
      (await api.patch('/service-connections/not-a-uuid', { direction: 'both' }, { token: owner.token })).status,
    ).toBe(422);
  });

  it('deletes a connection; it is gone afterwards', async () => {
    const { owner, web, db, scope } = await catalog();
    const c = await connect(api, owner.token, { ...scope, a_type: 'service', a_id: web, b_type: 'service', b_id: db });
    expect((await api.delete(`/service-connections/${c.id}`, undefined, { token: owner.token })).status).toBe(204);
    const again = await api.delete(`/service-connections/${c.id}`, undefined, { token: owner.token });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ detail: 'Connection not found' });
    expect(
      (await api.patch(`/service-connections/${c.id}`, { direction: 'both' }, { token: owner.token })).status,
    ).toBe(404);
  });

  it('answers byte-identical 404s for unknown and foreign connections, and 403 to a viewer', async () => {
    const { owner, envId, web, db, scope } = await catalog();
    const c = await connect(api, owner.token, { ...scope, a_type: 'service', a_id: web, b_type: 'service', b_id: db });
    const stranger = await signUp(api);
    const foreign = await api.patch(`/service-connections/${c.id}`, { direction: 'both' }, { token: stranger.token });
    const unknown = await api.patch(
      `/service-connections/${randomUUID()}`,
      { direction: 'both' },
      { token: stranger.token },
    );
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(unknown.text);
    expect(foreign.body).toEqual({ detail: 'Connection not found' });
    const foreignDelete = await api.delete(`/service-connections/${c.id}`, undefined, { token: stranger.token });
    expect(foreignDelete.text).toBe(unknown.text);
    // A service id is not a connection id.
    expect((await api.delete(`/service-connections/${web}`, undefined, { token: owner.token })).text).toBe(
      unknown.text,
    );

    const viewer = await signUp(api);
    await grantRole(api, owner.token, envId, viewer.id, 'viewer');
    const patch = await api.patch(`/service-connections/${c.id}`, { direction: 'both' }, { token: viewer.token });
    expect(patch.status).toBe(403);
    expect(patch.body).toEqual({ detail: 'Missing permission: connections.manage' });
    expect((await api.delete(`/service-connections/${c.id}`, undefined, { token: viewer.token })).status).toBe(403);
    const list = await api.get(`/service-connections?project_id=${scope.project_id}&environment_id=${envId}`, {
      token: owner.token,
    });
    expect(list.body).toEqual([expect.objectContaining({ id: c.id, direction: 'none' })]);
  });
});
