import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { grantRole } from '../helpers/tenancy.ts';
import { addEnv, addFloor, addService, link, ownerWithEnv, removeService } from '../helpers/topology.ts';

const ref = useTestStack();
const api = client(() => ref.stack.url);

async function catalog() {
  const base = await ownerWithEnv(api);
  const { owner, projectId, envId } = base;
  const web = await addService(api, owner.token, projectId, envId, 'web');
  const db = await addService(api, owner.token, projectId, envId, 'db');
  const scope = { project_id: projectId, environment_id: envId };
  const list = async (query = '', token = owner.token) =>
    api.get(`/service-links?project_id=${projectId}&environment_id=${envId}${query}`, { token });
  return { ...base, web, db, scope, list };
}

describe('POST /service-links', () => {
  it('links two services of one environment, in the documented shape', async () => {
    const { owner, web, db, scope } = await catalog();
    const res = await api.post(
      '/service-links',
      { ...scope, from_service_id: web, to_service_id: db },
      { token: owner.token },
    );
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([
      'created_at',
      'deleted_at',
      'environment_id',
      'from_service_id',
      'id',
      'project_id',
      'to_service_id',
      'updated_at',
    ]);
    expect(res.body).toMatchObject({ ...scope, from_service_id: web, to_service_id: db, deleted_at: null });
  });

  it('refuses a service linked to itself with 422 before any lookup, and malformed bodies', async () => {
    const user = await signUp(api);
    const id = randomUUID();
    const res = await api.post(
      '/service-links',
      { project_id: randomUUID(), environment_id: randomUUID(), from_service_id: id, to_service_id: id },
      { token: user.token },
    );
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['body', 'to_service_id'], msg: 'A service may not be linked to itself', type: 'custom' },
    ]);
    const missing = await api.post(
      '/service-links',
      { project_id: randomUUID(), environment_id: randomUUID(), from_service_id: id },
      { token: user.token },
    );
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toMatchObject({ loc: ['body', 'to_service_id'], type: 'missing' });
  });

  it('refuses a duplicate link with 400; the reverse direction is a different link', async () => {
    const { owner, web, db, scope } = await catalog();
    await link(api, owner.token, scope.project_id, scope.environment_id, web, db);
    const dup = await api.post(
      '/service-links',
      { ...scope, from_service_id: web, to_service_id: db },
      { token: owner.token },
    );
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ detail: 'Link already exists' });
    await link(api, owner.token, scope.project_id, scope.environment_id, db, web);
  });

  it('requires both ends to be live services of the same environment (floors are not services)', async () => {
    const { owner, projectId, envId, web, scope, list } = await catalog();
    const post = (from: string, to: string) =>
      api.post('/service-links', { ...scope, from_service_id: from, to_service_id: to }, { token: owner.token });
    const unknown = await post(web, randomUUID());
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: 'Service not found' });
    const floor = await addFloor(api, owner.token, projectId, envId, 'vm-1');
    expect((await post(floor, web)).text).toBe(unknown.text);
    const staging = await addEnv(api, owner.token, projectId);
    expect((await post(web, await addService(api, owner.token, projectId, staging, 'elsewhere'))).text).toBe(
      unknown.text,
    );
    const gone = await addService(api, owner.token, projectId, envId, 'gone');
    await removeService(api, owner.token, gone);
    expect((await post(gone, web)).text).toBe(unknown.text);
    expect((await list()).body).toEqual([]);
  });

  it('answers 404 to non-members, 400 for a foreign environment, 403 to viewers; managers may link', async () => {
    const { owner, envId, web, db, scope } = await catalog();
    const body = { ...scope, from_service_id: web, to_service_id: db };
    const stranger = await signUp(api);
    const nonMember = await api.post('/service-links', body, { token: stranger.token });
    expect(nonMember.status).toBe(404);
    expect(nonMember.body).toEqual({ detail: 'Project not found' });
    const other = await ownerWithEnv(api);
    const env = await api.post('/service-links', { ...body, environment_id: other.envId }, { token: owner.token });
    expect(env.status).toBe(400);
    expect(env.body).toEqual({ detail: 'Environment not found or does not belong to project' });
    const viewer = await signUp(api);
    await grantRole(api, owner.token, envId, viewer.id, 'viewer');
    const refused = await api.post('/service-links', body, { token: viewer.token });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'Missing permission: connections.manage' });
    const manager = await signUp(api);
    await grantRole(api, owner.token, envId, manager.id, 'manager');
    expect((await api.post('/service-links', body, { token: manager.token })).status).toBe(201);
  });
});

describe('GET /service-links', () => {
  it('returns the edge list, optionally of one service; the viewer reads it; non-members get 404', async () => {
    const { owner, projectId, envId, web, db, list } = await catalog();
    const cache = await addService(api, owner.token, projectId, envId, 'cache');
    const l1 = await link(api, owner.token, projectId, envId, web, db);
    const l2 = await link(api, owner.token, projectId, envId, web, cache);
    const l3 = await link(api, owner.token, projectId, envId, cache, db);
    const all = await list();
    expect(all.status).toBe(200);
    expect(all.body.map((l: { id: string }) => l.id)).toEqual([l1.id, l2.id, l3.id]);
    expect(all.body[0]).toMatchObject({ from_service_id: web, to_service_id: db });
    expect((await list(`&service_id=${cache}`)).body.map((l: { id: string }) => l.id)).toEqual([l2.id, l3.id]);
    const viewer = await signUp(api);
    await grantRole(api, owner.token, envId, viewer.id, 'viewer');
    expect((await list('', viewer.token)).body).toHaveLength(3);
    const stranger = await signUp(api);
    const refused = await list('', stranger.token);
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ detail: 'Project not found' });
    const bad = await api.get(`/service-links?project_id=${projectId}`, { token: owner.token });
    expect(bad.status).toBe(422);
  });
});

describe('DELETE /service-links/{link_id}', () => {
  it('deletes a link (kept in updated_since syncs); the pair may be linked again', async () => {
    const { owner, web, db, scope, list } = await catalog();
    const l = await link(api, owner.token, scope.project_id, scope.environment_id, web, db);
    const since = new Date(Math.max(Date.now(), Date.parse(l.updated_at) + 1)).toISOString();
    expect((await api.delete(`/service-links/${l.id}`, undefined, { token: owner.token })).status).toBe(204);
    expect((await list()).body).toEqual([]);
    const sync = await list(`&updated_since=${encodeURIComponent(since)}`);
    expect(sync.body).toEqual([expect.objectContaining({ id: l.id, deleted_at: expect.any(String) })]);
    const again = await api.delete(`/service-links/${l.id}`, undefined, { token: owner.token });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ detail: 'Link not found' });
    await link(api, owner.token, scope.project_id, scope.environment_id, web, db);
  });

  it('answers byte-identical 404s for unknown and foreign links, 403 to a viewer', async () => {
    const { owner, envId, web, db, scope } = await catalog();
    const l = await link(api, owner.token, scope.project_id, envId, web, db);
    const stranger = await signUp(api);
    const foreign = await api.delete(`/service-links/${l.id}`, undefined, { token: stranger.token });
    const unknown = await api.delete(`/service-links/${randomUUID()}`, undefined, { token: stranger.token });
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(unknown.text);
    const viewer = await signUp(api);
    await grantRole(api, owner.token, envId, viewer.id, 'viewer');
    const refused = await api.delete(`/service-links/${l.id}`, undefined, { token: viewer.token });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'Missing permission: connections.manage' });
    expect((await api.delete('/service-links/nope', undefined, { token: owner.token })).status).toBe(422);
  });
});
