import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { setPlan } from '../helpers/plans.ts';
import { grantRole, projectWithEnv } from '../helpers/tenancy.ts';

const ref = useTestStack();
const api = client(() => ref.stack.url);

async function group(
  token: string,
  projectId: string,
  envId: string,
  name: string,
  extra: Record<string, unknown> = {},
) {
  const res = await api.post('/groups', { project_id: projectId, environment_id: envId, name, ...extra }, { token });
  expect(res.status, res.text).toBe(201);
  return res.body;
}
async function subgroup(token: string, projectId: string, envId: string, groupId: string, name: string) {
  const res = await api.post(
    '/subgroups',
    { project_id: projectId, environment_id: envId, group_id: groupId, name },
    { token },
  );
  expect(res.status, res.text).toBe(201);
  return res.body;
}
const names = (res: { body: { name: string }[] }) => res.body.map((g) => g.name);

describe('groups', () => {
  it('creates, lists by name, renames and soft-deletes groups in the documented shape', async () => {
    const owner = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const web = await group(owner.token, projectId, envId, 'web', { description: 'Frontends' });
    expect(web).toEqual({
      id: expect.any(String),
      project_id: projectId,
      environment_id: envId,
      name: 'web',
      description: 'Frontends',
      updated_at: expect.any(String),
      deleted_at: null,
    });
    await group(owner.token, projectId, envId, 'Data');
    const list = await api.get(`/groups?project_id=${projectId}&environment_id=${envId}`, { token: owner.token });
    expect(list.status).toBe(200);
    expect(names(list)).toEqual(['Data', 'web']);
    expect(list.headers.get('x-sync-timestamp')).toMatch(/^\d{4}-\d\d-\d\dT/); // every call hands out a cursor

    const renamed = await api.patch(`/groups/${web.id}`, { name: 'frontend' }, { token: owner.token });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: web.id, name: 'frontend', description: 'Frontends' });
    const cleared = await api.patch(`/groups/${web.id}`, { description: null }, { token: owner.token });
    expect(cleared.body).toMatchObject({ name: 'frontend', description: null });

    const since = new Date(Date.now() - 60_000).toISOString();
    expect((await api.delete(`/groups/${web.id}`, undefined, { token: owner.token })).status).toBe(204);
    expect(
      names(await api.get(`/groups?project_id=${projectId}&environment_id=${envId}`, { token: owner.token })),
    ).toEqual(['Data']);
    const sync = await api.get(
      `/groups?project_id=${projectId}&environment_id=${envId}&updated_since=${encodeURIComponent(since)}`,
      { token: owner.token },
    );
    expect(sync.body.find((g: any) => g.id === web.id).deleted_at).toEqual(expect.any(String));
    expect(sync.headers.get('x-sync-timestamp')).toEqual(expect.any(String));
    const again = await api.delete(`/groups/${web.id}`, undefined, { token: owner.token });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ detail: 'Group not found' });
  });

  it('keeps group names unique per environment (ignoring case): duplicates, renames and deletes', async () => {
    const owner = await signUp(api);
    await setPlan(owner.id, 'Team');
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const staging = await api.post('/environments', { name: 'staging', project_id: projectId }, { token: owner.token });
    const web = await group(owner.token, projectId, envId, 'web');
    const dup = await api.post(
      '/groups',
      { project_id: projectId, environment_id: envId, name: 'WEB' },
      { token: owner.token },
    );
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ detail: 'Group with this name already exists in this environment' });
    await group(owner.token, projectId, staging.body.id, 'web'); // another environment: fine

    const api2 = await group(owner.token, projectId, envId, 'api');
    const clash = await api.patch(`/groups/${api2.id}`, { name: 'Web' }, { token: owner.token });
    expect(clash.status).toBe(400);
    expect(clash.body).toEqual({ detail: 'Group with this name already exists in this environment' });
    // A rename moves the claim: the old name is free, the new one taken.
    expect((await api.patch(`/groups/${web.id}`, { name: 'frontend' }, { token: owner.token })).status).toBe(200);
    await group(owner.token, projectId, envId, 'web');
    expect(
      (
        await api.post(
          '/groups',
          { project_id: projectId, environment_id: envId, name: 'frontend' },
          { token: owner.token },
        )
      ).status,
    ).toBe(400);
    // Changing only the case of one's own name is no clash.
    expect((await api.patch(`/groups/${api2.id}`, { name: 'API' }, { token: owner.token })).body.name).toBe('API');
    // Deleting releases the name.
    await api.delete(`/groups/${api2.id}`, undefined, { token: owner.token });
    await group(owner.token, projectId, envId, 'api');
  });

  it('creates exactly one of 8 concurrent groups with the same name', async () => {
    const owner = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api.post(
          '/groups',
          { project_id: projectId, environment_id: envId, name: i % 2 ? 'Race' : 'race' },
          { token: owner.token },
        ),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 201))
      expect(r.body).toEqual({ detail: 'Group with this name already exists in this environment' });
    expect(
      (await api.get(`/groups?project_id=${projectId}&environment_id=${envId}`, { token: owner.token })).body,
    ).toHaveLength(1);
  });

  it('lets a manager create and change groups, but not a viewer (who can still read them)', async () => {
    const owner = await signUp(api);
    const manager = await signUp(api);
    const viewer = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    await grantRole(api, owner.token, envId, manager.id, 'manager');
    await grantRole(api, owner.token, envId, viewer.id, 'viewer');
    const refused = await api.post(
      '/groups',
      { project_id: projectId, environment_id: envId, name: 'v' },
      { token: viewer.token },
    );
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'Not authorized to manage groups in this environment' });
    const made = await group(manager.token, projectId, envId, 'by manager');
    const rename = await api.patch(`/groups/${made.id}`, { name: 'x' }, { token: viewer.token });
    expect(rename.status).toBe(403);
    expect(rename.body).toEqual({ detail: 'Not authorized to manage groups in this environment' });
    const del = await api.delete(`/groups/${made.id}`, undefined, { token: viewer.token });
    expect(del.status).toBe(403);
    const sub = await api.post(
      '/subgroups',
      { project_id: projectId, environment_id: envId, group_id: made.id, name: 's' },
      { token: viewer.token },
    );
    expect(sub.status).toBe(403);
    expect(sub.body).toEqual({ detail: 'Not authorized to manage groups in this environment' });
    expect(
      names(await api.get(`/groups?project_id=${projectId}&environment_id=${envId}`, { token: viewer.token })),
    ).toEqual(['by manager']);
    await subgroup(manager.token, projectId, envId, made.id, 'by manager too');
    expect((await api.delete(`/groups/${made.id}`, undefined, { token: manager.token })).status).toBe(204);
  });

  it('refuses an environment that is not live in the project with 400, after tenancy', async () => {
    const owner = await signUp(api);
    await setPlan(owner.id, 'Team');
    const a = await projectWithEnv(api, owner.token, 'A');
    const b = await projectWithEnv(api, owner.token, 'B');
    for (const envId of [b.envId, randomUUID()]) {
      const post = await api.post(
        '/groups',
        { project_id: a.projectId, environment_id: envId, name: 'g' },
        { token: owner.token },
      );
      expect(post.status).toBe(400);
      expect(post.body).toEqual({ detail: 'Environment not found or does not belong to project' });
      const list = await api.get(`/groups?project_id=${a.projectId}&environment_id=${envId}`, { token: owner.token });
      expect(list.status).toBe(400);
      expect(list.body).toEqual({ detail: 'Environment not found or does not belong to project' });
    }
    const g = await group(owner.token, a.projectId, a.envId, 'g');
    await api.delete(`/environments/${a.envId}`, undefined, { token: owner.token });
    const inDeleted = await api.post(
      '/groups',
      { project_id: a.projectId, environment_id: a.envId, name: 'h' },
      { token: owner.token },
    );
    expect(inDeleted.status).toBe(400);
    // A group of a deleted environment is gone with it.
    const patch = await api.patch(`/groups/${g.id}`, { name: 'x' }, { token: owner.token });
    expect(patch.status).toBe(404);
    expect(patch.body).toEqual({ detail: 'Group not found' });
  });

  it('validates before any lookup (422)', async () => {
    const user = await signUp(api);
    const empty = await api.patch(`/groups/${randomUUID()}`, {}, { token: user.token });
    expect(empty.status).toBe(422);
    const blank = await api.post(
      '/groups',
      { project_id: randomUUID(), environment_id: randomUUID(), name: '  ' },
      { token: user.token },
    );
    expect(blank.status).toBe(422);
    expect(blank.body.detail[0].loc).toEqual(['body', 'name']);
    const noEnv = await api.get(`/groups?project_id=${randomUUID()}`, { token: user.token });
    expect(noEnv.status).toBe(422);
    expect(noEnv.body.detail[0]).toMatchObject({ loc: ['query', 'environment_id'], type: 'missing' });
    expect((await api.patch('/subgroups/not-a-uuid', { name: 'x' }, { token: user.token })).status).toBe(422);
  });

  it('counts live groups in the environment and project statistics', async () => {
    const owner = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    await group(owner.token, projectId, envId, 'one');
    const two = await group(owner.token, projectId, envId, 'two');
    await subgroup(owner.token, projectId, envId, two.id, 'not counted');
    await api.delete(`/groups/${(await group(owner.token, projectId, envId, 'three')).id}`, undefined, {
      token: owner.token,
    });
    const envStats = await api.get(`/environments/stats?project_id=${projectId}`, { token: owner.token });
    expect(envStats.body).toEqual([
      { environment_id: envId, name: 'production', services: 0, servers: 0, groups: 2, networks: 0 },
    ]);
    expect((await api.get('/projects/stats', { token: owner.token })).body).toEqual([
      { project_id: projectId, environments: 1, services: 0, servers: 0, groups: 2 },
    ]);
  });
});

describe('subgroups', () => {
  it('nests under a group; names are unique only within the parent', async () => {
    const owner = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const web = await group(owner.token, projectId, envId, 'web');
    const data = await group(owner.token, projectId, envId, 'data');
    const blue = await subgroup(owner.token, projectId, envId, web.id, 'blue');
    expect(blue).toEqual({
      id: expect.any(String),
      project_id: projectId,
      environment_id: envId,
      group_id: web.id,
      name: 'blue',
      description: null,
      updated_at: expect.any(String),
      deleted_at: null,
    });
    const dup = await api.post(
      '/subgroups',
      { project_id: projectId, environment_id: envId, group_id: web.id, name: 'Blue' },
      { token: owner.token },
    );
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ detail: 'Subgroup with this name already exists in this group' });
    await subgroup(owner.token, projectId, envId, data.id, 'blue'); // another parent: fine
    await subgroup(owner.token, projectId, envId, web.id, 'green');

    const all = await api.get(`/subgroups?project_id=${projectId}&environment_id=${envId}`, { token: owner.token });
    expect(all.body.map((s: any) => [s.name, s.group_id === web.id])).toEqual([
      ['blue', true],
      ['blue', false],
      ['green', true],
    ]);
    const ofWeb = await api.get(`/subgroups?project_id=${projectId}&environment_id=${envId}&group_id=${web.id}`, {
      token: owner.token,
    });
    expect(names(ofWeb)).toEqual(['blue', 'green']);

    const clash = await api.patch(`/subgroups/${blue.id}`, { name: 'GREEN' }, { token: owner.token });
    expect(clash.status).toBe(400);
    expect(
      (await api.patch(`/subgroups/${blue.id}`, { name: 'cyan', description: 'renamed' }, { token: owner.token })).body,
    ).toMatchObject({ name: 'cyan', description: 'renamed' });
    await subgroup(owner.token, projectId, envId, web.id, 'blue'); // the old name is free again
    expect((await api.delete(`/subgroups/${blue.id}`, undefined, { token: owner.token })).status).toBe(204);
    await subgroup(owner.token, projectId, envId, web.id, 'cyan'); // deleting released the name
    const gone = await api.patch(`/subgroups/${blue.id}`, { name: 'x' }, { token: owner.token });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ detail: 'Subgroup not found' });
  });

  it('needs a live parent group of the same environment', async () => {
    const owner = await signUp(api);
    await setPlan(owner.id, 'Team');
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const other = (await api.post('/environments', { name: 'staging', project_id: projectId }, { token: owner.token }))
      .body.id;
    const elsewhere = await group(owner.token, projectId, other, 'elsewhere');
    const deleted = await group(owner.token, projectId, envId, 'deleted');
    await api.delete(`/groups/${deleted.id}`, undefined, { token: owner.token });
    for (const groupId of [elsewhere.id, deleted.id, randomUUID()]) {
      const res = await api.post(
        '/subgroups',
        { project_id: projectId, environment_id: envId, group_id: groupId, name: 's' },
        { token: owner.token },
      );
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: 'Group not found or does not belong to environment' });
    }
  });

  it('are soft-deleted with their group, in syncs too', async () => {
    const owner = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const web = await group(owner.token, projectId, envId, 'web');
    const keep = await group(owner.token, projectId, envId, 'keep');
    const subs = [
      await subgroup(owner.token, projectId, envId, web.id, 'a'),
      await subgroup(owner.token, projectId, envId, web.id, 'b'),
    ];
    await subgroup(owner.token, projectId, envId, keep.id, 'a');
    const since = new Date(Date.now() - 60_000).toISOString();
    expect((await api.delete(`/groups/${web.id}`, undefined, { token: owner.token })).status).toBe(204);
    const live = await api.get(`/subgroups?project_id=${projectId}&environment_id=${envId}`, { token: owner.token });
    expect(live.body.map((s: any) => s.group_id)).toEqual([keep.id]);
    const sync = await api.get(
      `/subgroups?project_id=${projectId}&environment_id=${envId}&group_id=${web.id}&updated_since=${encodeURIComponent(since)}`,
      { token: owner.token },
    );
    expect(sync.body.map((s: any) => [s.id, s.deleted_at === null])).toEqual(subs.map((s) => [s.id, false]));
    for (const s of subs) {
      const res = await api.delete(`/subgroups/${s.id}`, undefined, { token: owner.token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Subgroup not found' });
    }
  });

  it('never outlive a group deleted while subgroups are being created', async () => {
    const owner = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const web = await group(owner.token, projectId, envId, 'web');
    await subgroup(owner.token, projectId, envId, web.id, 'first');
    const [del, ...creates] = await Promise.all([
      api.delete(`/groups/${web.id}`, undefined, { token: owner.token }),
      ...Array.from({ length: 6 }, (_, i) =>
        api.post(
          '/subgroups',
          { project_id: projectId, environment_id: envId, group_id: web.id, name: `s${i}` },
          { token: owner.token },
        ),
      ),
    ]);
    expect(del.status, del.text).toBe(204);
    for (const c of creates) {
      expect([201, 400], c.text).toContain(c.status);
      if (c.status === 400) expect(c.body).toEqual({ detail: 'Group not found or does not belong to environment' });
    }
    const left = await api.get(`/subgroups?project_id=${projectId}&environment_id=${envId}&group_id=${web.id}`, {
      token: owner.token,
    });
    expect(left.body).toEqual([]);
  });

  it('cascades to more subgroups than one transaction holds', async () => {
    const owner = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const big = await group(owner.token, projectId, envId, 'big');
    for (let i = 0; i < 95; i += 5) {
      await Promise.all(
        Array.from({ length: 5 }, (_, j) => subgroup(owner.token, projectId, envId, big.id, `s${i + j}`)),
      );
    }
    expect(
      (await api.get(`/subgroups?project_id=${projectId}&environment_id=${envId}`, { token: owner.token })).body,
    ).toHaveLength(95);
    expect((await api.delete(`/groups/${big.id}`, undefined, { token: owner.token })).status).toBe(204);
    expect(
      (await api.get(`/subgroups?project_id=${projectId}&environment_id=${envId}`, { token: owner.token })).body,
    ).toEqual([]);
  });
});
