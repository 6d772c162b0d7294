import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { setPlan } from '../helpers/plans.ts';
import { grantRole, projectWithEnv } from '../helpers/tenancy.ts';
import { ensureStaff } from '#domain/identity';
import { appContext } from '#shared/context';

const ref = useTestStack();
const api = client(() => ref.stack.url);

describe('POST /projects', () => {
  it('creates a project owned by the caller, in the documented shape', async () => {
    const user = await signUp(api);
    const res = await api.post('/projects', { name: 'Payments' }, { token: user.token });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([
      'cost_calc_enabled',
      'deleted_at',
      'id',
      'identifier',
      'is_owner',
      'name',
      'updated_at',
    ]);
    expect(res.body).toMatchObject({ name: 'Payments', is_owner: true, cost_calc_enabled: false, deleted_at: null });
    const members = await api.get(`/projects/members/${res.body.id}`, { token: user.token });
    expect(members.body).toEqual([{ user_id: user.id, email: user.email }]);
  });

  it('creates exactly one of 8 concurrent projects on the Free plan', async () => {
    const user = await signUp(api);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => api.post('/projects', { name: `race ${i}` }, { token: user.token })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(403);
      expect(r.body).toEqual({
        detail: "Project limit reached for your 'Free' plan (max 1). Please upgrade to create more projects.",
      });
    }
    expect((await api.get('/projects', { token: user.token })).body).toHaveLength(1);
  });

  it('refuses a duplicate name for the same owner (ignoring case), but not for another owner', async () => {
    const a = await signUp(api);
    await setPlan(a.id, 'Team');
    expect((await api.post('/projects', { name: 'Core' }, { token: a.token })).status).toBe(201);
    const dup = await api.post('/projects', { name: 'core' }, { token: a.token });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ detail: 'Project with this name already exists for this owner' });
    const b = await signUp(api);
    expect((await api.post('/projects', { name: 'Core' }, { token: b.token })).status).toBe(201);
  });

  it('frees the plan slot and the name when a project is deleted', async () => {
    const user = await signUp(api);
    const first = await api.post('/projects', { name: 'Only' }, { token: user.token });
    expect((await api.delete(`/projects/${first.body.id}`, undefined, { token: user.token })).status).toBe(204);
    expect((await api.post('/projects', { name: 'Only' }, { token: user.token })).status).toBe(201);
  });

  it('refuses accounts that are not customers, and creating for other users', async () => {
    const user = await signUp(api);
    const other = await signUp(api);
    const forOther = await api.post('/projects', { name: 'x', creator_user_id: other.id }, { token: user.token });
    expect(forOther.status).toBe(403);
    expect(forOther.body).toEqual({ detail: 'You are not allowed to create projects for other users' });
    await ensureStaff(appContext(), { email: 'staff-projects@example.com', password: 'correct horse battery' });
    const staff = await api.post('/auth/login', {
      email: 'staff-projects@example.com',
      password: 'correct horse battery',
    });
    const own = await api.post('/projects', { name: 'x' }, { token: staff.body.access_token });
    expect(own.status).toBe(403);
    expect(own.body).toEqual({ detail: 'You are not allowed to create projects' });
    const forCustomer = await api.post(
      '/projects',
      { name: 'Made by staff', creator_user_id: other.id },
      { token: staff.body.access_token },
    );
    expect(forCustomer.status).toBe(201);
    expect(forCustomer.body.is_owner).toBe(false);
    expect((await api.get('/projects', { token: other.token })).body.map((p: any) => p.name)).toEqual([
      'Made by staff',
    ]);
    const ghost = await api.post(
      '/projects',
      { name: 'x', creator_user_id: randomUUID() },
      { token: staff.body.access_token },
    );
    expect(ghost.status).toBe(404);
    expect(ghost.body).toEqual({ detail: 'Owner user not found' });
  });

  it('validates before anything else (422)', async () => {
    const user = await signUp(api);
    const res = await api.post('/projects', { name: '' }, { token: user.token });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'name']);
  });
});

describe('GET /projects', () => {
  it('orders owned projects first, then by name; syncs include deleted ones with X-Sync-Timestamp', async () => {
    const owner = await signUp(api);
    await setPlan(owner.id, 'Team');
    const other = await signUp(api);
    await setPlan(other.id, 'Team');
    const theirs = await projectWithEnv(api, other.token, 'Alpha shared');
    await grantRole(api, other.token, theirs.envId, owner.id, 'viewer');
    for (const n of ['zeta', 'Beta', 'gamma']) await api.post('/projects', { name: n }, { token: owner.token });
    const list = await api.get('/projects', { token: owner.token });
    expect(list.body.map((p: any) => [p.name, p.is_owner])).toEqual([
      ['Beta', true],
      ['gamma', true],
      ['zeta', true],
      ['Alpha shared', false],
    ]);
    expect(list.headers.get('x-sync-timestamp')).toMatch(/^\d{4}-\d\d-\d\dT/); // every call hands out a cursor

    const since = new Date(Date.now() - 60_000).toISOString();
    const gamma = list.body.find((p: any) => p.name === 'gamma');
    await api.delete(`/projects/${gamma.id}`, undefined, { token: owner.token });
    expect((await api.get('/projects', { token: owner.token })).body.map((p: any) => p.name)).not.toContain('gamma');
    const asked = Date.now();
    const sync = await api.get(`/projects?updated_since=${encodeURIComponent(since)}`, { token: owner.token });
    expect(sync.body.find((p: any) => p.name === 'gamma').deleted_at).toEqual(expect.any(String));
    // The cursor is taken before the read and reaches back over writes still in flight (2 s).
    const cursor = new Date(sync.headers.get('x-sync-timestamp')!).getTime();
    expect(cursor).toBeLessThan(asked);
    expect(cursor).toBeGreaterThan(asked - 5_000);
    // Whatever changes after the cursor shows in the next sync.
    await api.patch(`/projects/${list.body[0].id}/settings`, { cost_calc_enabled: true }, { token: owner.token });
    const next = await api.get(`/projects?updated_since=${encodeURIComponent(new Date(cursor).toISOString())}`, {
      token: owner.token,
    });
    expect(next.body.map((p: any) => p.id)).toContain(list.body[0].id);
    const future = await api.get(
      `/projects?updated_since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
      { token: owner.token },
    );
    expect(future.body).toEqual([]);
  });

  it('takes updated_since in any ISO 8601 form: offset, none (UTC) or a bare date; anything else is 422', async () => {
    const owner = await signUp(api);
    const { projectId } = await projectWithEnv(api, owner.token);
    const hourAgo = new Date(Date.now() - 3_600_000);
    const naive = hourAgo.toISOString().replace('Z', '');
    const forms = [
      naive,
      naive.slice(0, 16),
      hourAgo.toISOString().slice(0, 10),
      hourAgo.toISOString().replace('Z', '+00:00'),
    ];
    for (const since of forms) {
      const sync = await api.get(`/projects?updated_since=${encodeURIComponent(since)}`, { token: owner.token });
      expect(sync.status).toBe(200);
      expect(sync.body.map((p: any) => p.id)).toEqual([projectId]);
      expect(sync.headers.get('x-sync-timestamp')).toEqual(expect.any(String));
    }
    // a naive value is UTC, not the server's local time: an hour ahead of now finds nothing
    const ahead = new Date(Date.now() + 3_600_000).toISOString().replace('Z', '');
    expect((await api.get(`/projects?updated_since=${ahead}`, { token: owner.token })).body).toEqual([]);
    for (const bad of ['yesterday', '2026-02-31', '2026-01-01T25:00:00']) {
      const res = await api.get(`/projects?updated_since=${bad}`, { token: owner.token });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['query', 'updated_since']);
    }
  });
});

describe('project settings, plan, stats', () => {
  it('changes cost_calc_enabled (owner only) and shows the governing plan', async () => {
    const owner = await signUp(api);
    const viewer = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    await grantRole(api, owner.token, envId, viewer.id, 'viewer');
    const res = await api.patch(`/projects/${projectId}/settings`, { cost_calc_enabled: true }, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.cost_calc_enabled).toBe(true);
    const refused = await api.patch(
      `/projects/${projectId}/settings`,
      { cost_calc_enabled: false },
      { token: viewer.token },
    );
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'Project owner required' });
    expect((await api.patch(`/projects/${projectId}/settings`, {}, { token: owner.token })).status).toBe(422);
    expect((await api.get(`/projects/${projectId}/plan`, { token: viewer.token })).body).toEqual({
      project_id: projectId,
      plan_name: 'Free',
      plan_tier: 'free',
      is_owner: false,
    });
  });

  it('counts environments per reachable project', async () => {
    const owner = await signUp(api);
    const { projectId } = await projectWithEnv(api, owner.token);
    const stats = await api.get('/projects/stats', { token: owner.token });
    expect(stats.body).toEqual([{ project_id: projectId, environments: 1, services: 0, servers: 0, groups: 0 }]);
  });

  it('only the owner deletes a project', async () => {
    const owner = await signUp(api);
    const member = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    await grantRole(api, owner.token, envId, member.id, 'administrator');
    const res = await api.delete(`/projects/${projectId}`, undefined, { token: member.token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Project owner required' });
  });
});

describe('tenancy', () => {
  it('gives byte-identical 404 bodies for a foreign project and a random id on every project-scoped route', async () => {
    const owner = await signUp(api);
    const stranger = await signUp(api);
    const { projectId } = await projectWithEnv(api, owner.token);
    const routes: [string, string, unknown?][] = [
      ['GET', '/projects/members/{id}'],
      ['PATCH', '/projects/{id}/settings', { cost_calc_enabled: true }],
      ['GET', '/projects/{id}/plan'],
      ['GET', '/projects/{id}/audit-log'],
      ['GET', '/projects/{id}/audit-log?entity_type=service&limit=5'],
      ['DELETE', '/projects/{id}'],
    ];
    for (const [method, path, body] of routes) {
      const foreign = await api.call(method, path.replace('{id}', projectId), body, { token: stranger.token });
      const random = await api.call(method, path.replace('{id}', randomUUID()), body, { token: stranger.token });
      expect(foreign.status, path).toBe(404);
      expect(foreign.text, path).toBe('{"detail":"Project not found"}');
      expect(random.text, path).toBe(foreign.text);
    }
  });
});
