import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { setPlan } from '../helpers/plans.ts';
import { grantRole, projectWithEnv } from '../helpers/tenancy.ts';
import { linkFrom, readOutbox } from '../helpers/outbox.ts';

const ref = useTestStack();
const api = client(() => ref.stack.url);

const memberIds = async (token: string, projectId: string) =>
  (await api.get(`/projects/members/${projectId}`, { token })).body.map((m: any) => m.user_id);

describe('GET /environments', () => {
  it('answers a non-member 403, also for a project id that does not exist', async () => {
    const owner = await signUp(api);
    const stranger = await signUp(api);
    const { projectId } = await projectWithEnv(api, owner.token);
    for (const id of [projectId, randomUUID()]) {
      const res = await api.get(`/environments?project_id=${id}`, { token: stranger.token });
      expect(res.status).toBe(403);
      expect(res.text).toBe('{"detail":"Not authorized to view environments for this project"}');
    }
    const stats = await api.get(`/environments/stats?project_id=${projectId}`, { token: stranger.token });
    expect(stats.status).toBe(403);
    expect(stats.body).toEqual({ detail: 'Not authorized to view environments for this project' });
  });

  it('lists live environments in the documented shape; syncs include deleted ones', async () => {
    const owner = await signUp(api);
    await setPlan(owner.id, 'Team');
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const staging = await api.post('/environments', { name: 'staging', project_id: projectId }, { token: owner.token });
    expect(staging.status).toBe(201);
    expect(staging.body).toEqual({
      id: expect.any(String),
      name: 'staging',
      project_id: projectId,
      updated_at: expect.any(String),
      deleted_at: null,
    });
    const list = await api.get(`/environments?project_id=${projectId}`, { token: owner.token });
    expect(list.body.map((e: any) => e.name)).toEqual(['production', 'staging']);
    expect(list.headers.get('x-sync-timestamp')).toMatch(/^\d{4}-\d\d-\d\dT/); // every call hands out a cursor

    const since = new Date(Date.now() - 60_000).toISOString();
    expect((await api.delete(`/environments/${staging.body.id}`, undefined, { token: owner.token })).status).toBe(204);
    expect(
      (await api.get(`/environments?project_id=${projectId}`, { token: owner.token })).body.map((e: any) => e.id),
    ).toEqual([envId]);
    const sync = await api.get(`/environments?project_id=${projectId}&updated_since=${encodeURIComponent(since)}`, {
      token: owner.token,
    });
    expect(sync.body.find((e: any) => e.id === staging.body.id).deleted_at).toEqual(expect.any(String));
    expect(sync.headers.get('x-sync-timestamp')).toEqual(expect.any(String));
    // Its name is free again, and the environment itself is gone for every route.
    expect(
      (await api.post('/environments', { name: 'staging', project_id: projectId }, { token: owner.token })).status,
    ).toBe(201);
    const gone = await api.patch(`/environments/${staging.body.id}`, { name: 'x' }, { token: owner.token });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ detail: 'Environment not found' });
  });
});

describe('POST /environments', () => {
  it('enforces the plan limit per project: the second environment on Free is refused', async () => {
    const owner = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const res = await api.post('/environments', { name: 'staging', project_id: projectId }, { token: owner.token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      detail:
        "Environment limit reached for your 'Free' plan (max 1 per project). Please upgrade to create more environments.",
    });
    // Deleting frees the slot.
    await api.delete(`/environments/${envId}`, undefined, { token: owner.token });
    expect(
      (await api.post('/environments', { name: 'staging', project_id: projectId }, { token: owner.token })).status,
    ).toBe(201);
  });

  it('never exceeds the limit under concurrent creates', async () => {
    const owner = await signUp(api);
    await setPlan(owner.id, 'Starter'); // three per project
    const project = await api.post('/projects', { name: 'racing' }, { token: owner.token });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api.post('/environments', { name: `env ${i}`, project_id: project.body.id }, { token: owner.token }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    for (const r of results.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(403);
      expect(r.body).toEqual({
        detail:
          "Environment limit reached for your 'Starter' plan (max 3 per project). Please upgrade to create more environments.",
      });
    }
    expect((await api.get(`/environments?project_id=${project.body.id}`, { token: owner.token })).body).toHaveLength(3);
  });

  it('refuses duplicate names, non-owners, and unknown projects', async () => {
    const owner = await signUp(api);
    await setPlan(owner.id, 'Team');
    const admin = await signUp(api);
    const stranger = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const dup = await api.post('/environments', { name: 'PRODUCTION', project_id: projectId }, { token: owner.token });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ detail: 'Environment with this name already exists in this project' });
    await grantRole(api, owner.token, envId, admin.id, 'administrator');
    const byAdmin = await api.post('/environments', { name: 'x', project_id: projectId }, { token: admin.token });
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.body).toEqual({ detail: 'Not authorized to create environments in this project' });
    const foreign = await api.post('/environments', { name: 'x', project_id: projectId }, { token: stranger.token });
    const random = await api.post('/environments', { name: 'x', project_id: randomUUID() }, { token: stranger.token });
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe('{"detail":"Project not found"}');
    expect(random.text).toBe(foreign.text);
  });
});

describe('PATCH /environments/{id}', () => {
  it('renames (name is the only field); duplicates are refused; a viewer may not', async () => {
    const owner = await signUp(api);
    await setPlan(owner.id, 'Team');
    const viewer = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    await api.post('/environments', { name: 'staging', project_id: projectId }, { token: owner.token });
    const res = await api.patch(
      `/environments/${envId}`,
      { name: 'prod', project_id: randomUUID() },
      { token: owner.token },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: envId, name: 'prod', project_id: projectId });
    expect(
      (await api.get(`/environments?project_id=${projectId}`, { token: owner.token })).body.map((e: any) => e.name),
    ).toEqual(['prod', 'staging']);
    const clash = await api.patch(`/environments/${envId}`, { name: 'Staging' }, { token: owner.token });
    expect(clash.status).toBe(400);
    expect(clash.body).toEqual({ detail: 'Environment with this name already exists in this project' });
    expect(
      (await api.post('/environments', { name: 'production', project_id: projectId }, { token: owner.token })).status,
    ).toBe(201);
    await grantRole(api, owner.token, envId, viewer.id, 'viewer');
    const refused = await api.patch(`/environments/${envId}`, { name: 'mine' }, { token: viewer.token });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'Not authorized to manage environments in this project' });
    const del = await api.delete(`/environments/${envId}`, undefined, { token: viewer.token });
    expect(del.status).toBe(403);
    expect((await api.patch(`/environments/${envId}`, {}, { token: owner.token })).status).toBe(422);
  });
});

describe('GET /environments/stats', () => {
  it('counts per live environment, for any member', async () => {
    const owner = await signUp(api);
    await setPlan(owner.id, 'Team');
    const viewer = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const staging = (
      await api.post('/environments', { name: 'staging', project_id: projectId }, { token: owner.token })
    ).body.id;
    const dropped = (
      await api.post('/environments', { name: 'dropped', project_id: projectId }, { token: owner.token })
    ).body.id;
    await api.delete(`/environments/${dropped}`, undefined, { token: owner.token });
    await api.post('/groups', { project_id: projectId, environment_id: staging, name: 'g' }, { token: owner.token });
    await grantRole(api, owner.token, envId, viewer.id, 'viewer');
    const res = await api.get(`/environments/stats?project_id=${projectId}`, { token: viewer.token });
    expect(res.status).toBe(200);
    const byEnv = Object.fromEntries(res.body.map((s: any) => [s.environment_id, s]));
    expect(Object.keys(byEnv).sort()).toEqual([envId, staging].sort());
    expect(byEnv[envId]).toEqual({
      environment_id: envId,
      name: 'production',
      services: 0,
      servers: 0,
      groups: 0,
      networks: 0,
    });
    expect(byEnv[staging]).toEqual({
      environment_id: staging,
      name: 'staging',
      services: 0,
      servers: 0,
      groups: 1,
      networks: 0,
    });
  });
});

describe('environment roles', () => {
  it('upserts an assignment: 201 in the documented shape, the same id on update', async () => {
    const owner = await signUp(api);
    const dev = await signUp(api);
    const { envId } = await projectWithEnv(api, owner.token);
    const first = await api.post(
      `/environments/${envId}/roles`,
      { user_id: dev.id, role: 'viewer' },
      { token: owner.token },
    );
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ id: expect.any(String), environment_id: envId, user_id: dev.id, role: 'viewer' });
    const second = await api.post(
      `/environments/${envId}/roles`,
      { user_id: dev.id, role: 'manager' },
      { token: owner.token },
    );
    expect(second.status).toBe(201);
    expect(second.body).toEqual({ ...first.body, role: 'manager' });
    expect((await api.get(`/environments/${envId}/roles`, { token: owner.token })).body).toEqual([second.body]);
  });

  it("the owner's assignment makes the target a member, tells them by mail and logs it", async () => {
    const owner = await signUp(api);
    const outsider = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token, 'Shop <&> "North"');
    expect(await memberIds(owner.token, projectId)).not.toContain(outsider.id);
    await grantRole(api, owner.token, envId, outsider.id, 'manager');
    expect(await memberIds(owner.token, projectId)).toContain(outsider.id);
    expect((await api.get('/projects', { token: outsider.token })).body.map((p: any) => p.id)).toEqual([projectId]);

    await ref.stack.queues.drain();
    const [mail, ...more] = await readOutbox(ref.stack.dataDir, { to: outsider.email });
    expect(more).toEqual([]);
    expect(mail.subject).toBe(`${owner.email} added you to Shop <&> "North" on Infrastructure Catalog`);
    expect(mail.text).toContain(
      `${owner.email} added you to the project "Shop <&> "North"" on Infrastructure Catalog, with the role manager in the environment "production".`,
    );
    expect(linkFrom(mail, `/p/${projectId}`).origin).toBe(new URL(ref.stack.url).origin);
    expect(mail.html).toContain('Shop &lt;&amp;&gt; &quot;North&quot;');

    // The membership is in the project's log, by the owner, beside the role's own entry.
    const log = await api.get(`/projects/${projectId}/audit-log?entity_id=${outsider.id}`, { token: owner.token });
    expect(log.body).toEqual([
      expect.objectContaining({
        action: 'member.create',
        entity_type: 'member',
        entity_id: outsider.id,
        actor: expect.objectContaining({ id: owner.id }),
        before: null,
        after: { user_id: outsider.id, email: outsider.email, role: 'member' },
        summary: { via: 'env_role' },
      }),
    ]);

    // A second role for a member is no news: no mail, no membership entry.
    await grantRole(api, owner.token, envId, outsider.id, 'viewer');
    await ref.stack.queues.drain();
    expect(await readOutbox(ref.stack.dataDir, { to: outsider.email })).toHaveLength(1);
    expect(
      (await api.get(`/projects/${projectId}/audit-log?entity_id=${outsider.id}`, { token: owner.token })).body,
    ).toHaveLength(1);
  });

  it("refuses an administrator's or a role manager's assignment to a non-member exactly like an unknown id, and writes nothing", async () => {
    const owner = await signUp(api);
    await setPlan(owner.id, 'Team');
    const admin = await signUp(api);
    const lead = await signUp(api);
    const outsider = await signUp(api);
    const member = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    await grantRole(api, owner.token, envId, admin.id, 'administrator');
    await grantRole(api, owner.token, envId, member.id, 'viewer');
    const role = await api.post(
      `/projects/${projectId}/custom-roles`,
      { name: 'role managers', permissions: ['env.roles.manage'] },
      { token: owner.token },
    );
    expect(
      (
        await api.post(
          `/projects/${projectId}/custom-roles/${role.body.id}/assignments`,
          { user_id: lead.id },
          { token: owner.token },
        )
      ).status,
    ).toBe(201);
    const before = (await api.get(`/environments/${envId}/roles`, { token: owner.token })).body;

    for (const who of [admin, lead]) {
      const unknown = await api.post(
        `/environments/${envId}/roles`,
        { user_id: randomUUID(), role: 'manager' },
        { token: who.token },
      );
      expect([unknown.status, unknown.text]).toEqual([404, JSON.stringify({ detail: 'User not found' })]);
      const outside = await api.post(
        `/environments/${envId}/roles`,
        { user_id: outsider.id, role: 'manager' },
        { token: who.token },
      );
      expect([outside.status, outside.text]).toEqual([unknown.status, unknown.text]);
      // A member is theirs to give a role.
      const inside = await api.post(
        `/environments/${envId}/roles`,
        { user_id: member.id, role: 'manager' },
        { token: who.token },
      );
      expect(inside.status, inside.text).toBe(201);
    }
    // Nothing was written for the outsider: no role record, no membership, no access, no mail.
    const after = (await api.get(`/environments/${envId}/roles`, { token: owner.token })).body;
    expect(after.map((r: any) => r.user_id).sort()).toEqual(before.map((r: any) => r.user_id).sort());
    expect(after.find((r: any) => r.user_id === member.id).role).toBe('manager');
    expect(await memberIds(owner.token, projectId)).not.toContain(outsider.id);
    expect((await api.get(`/environments?project_id=${projectId}`, { token: outsider.token })).status).toBe(403);
    await ref.stack.queues.drain();
    expect(await readOutbox(ref.stack.dataDir, { to: outsider.email })).toEqual([]);
  });

  it('refuses managers and viewers with 403', async () => {
    const owner = await signUp(api);
    const manager = await signUp(api);
    const viewer = await signUp(api);
    const target = await signUp(api);
    const { envId } = await projectWithEnv(api, owner.token);
    await grantRole(api, owner.token, envId, manager.id, 'manager');
    await grantRole(api, owner.token, envId, viewer.id, 'viewer');
    for (const who of [manager, viewer]) {
      const post = await api.post(
        `/environments/${envId}/roles`,
        { user_id: target.id, role: 'viewer' },
        { token: who.token },
      );
      expect(post.status).toBe(403);
      expect(post.body).toEqual({ detail: 'Not authorized to manage environment roles' });
      const del = await api.delete(`/environments/${envId}/roles/${viewer.id}`, undefined, { token: who.token });
      expect(del.status).toBe(403);
      expect(del.body).toEqual({ detail: 'Not authorized to manage environment roles' });
    }
    // Reading the assignments is open to members.
    expect((await api.get(`/environments/${envId}/roles`, { token: viewer.token })).status).toBe(200);
  });

  it('removes an assignment', async () => {
    const owner = await signUp(api);
    const dev = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    await grantRole(api, owner.token, envId, dev.id, 'manager');
    expect(
      (await api.get(`/auth/me/capabilities?project_id=${projectId}&environment_id=${envId}`, { token: dev.token }))
        .body.capabilities,
    ).toContain('services.manage');
    expect((await api.delete(`/environments/${envId}/roles/${dev.id}`, undefined, { token: owner.token })).status).toBe(
      204,
    );
    expect((await api.get(`/environments/${envId}/roles`, { token: owner.token })).body).toEqual([]);
    expect(
      (await api.get(`/auth/me/capabilities?project_id=${projectId}&environment_id=${envId}`, { token: dev.token }))
        .body.capabilities,
    ).not.toContain('services.manage');
    const again = await api.delete(`/environments/${envId}/roles/${dev.id}`, undefined, { token: owner.token });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ detail: 'Role assignment not found' });
  });

  it('refuses an unknown user with 404', async () => {
    const owner = await signUp(api);
    const { envId } = await projectWithEnv(api, owner.token);
    const res = await api.post(
      `/environments/${envId}/roles`,
      { user_id: randomUUID(), role: 'viewer' },
      { token: owner.token },
    );
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'User not found' });
  });
});

describe('environment tenancy', () => {
  it('gives byte-identical 404 bodies for random and foreign environment ids on every /environments/{id} route', async () => {
    const owner = await signUp(api);
    const stranger = await signUp(api);
    const { envId } = await projectWithEnv(api, owner.token);
    const routes: [string, string, unknown?][] = [
      ['PATCH', '/environments/{id}', { name: 'x' }],
      ['DELETE', '/environments/{id}'],
      ['POST', '/environments/{id}/roles', { user_id: stranger.id, role: 'administrator' }],
      ['GET', '/environments/{id}/roles'],
      ['DELETE', `/environments/{id}/roles/${owner.id}`],
    ];
    for (const [method, path, body] of routes) {
      const foreign = await api.call(method, path.replace('{id}', envId), body, { token: stranger.token });
      const random = await api.call(method, path.replace('{id}', randomUUID()), body, { token: stranger.token });
      expect(foreign.status, `${method} ${path}`).toBe(404);
      expect(foreign.text, `${method} ${path}`).toBe('{"detail":"Environment not found"}');
      expect(random.text, `${method} ${path}`).toBe(foreign.text);
    }
    // The foreign environment is untouched.
    expect((await api.get(`/environments/${envId}/roles`, { token: owner.token })).body).toEqual([]);
  });

  it('validates before any lookup: a bad role on a random environment is 422, not 404', async () => {
    const user = await signUp(api);
    const res = await api.post(
      `/environments/${randomUUID()}/roles`,
      { user_id: randomUUID(), role: 'superuser' },
      { token: user.token },
    );
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'role']);
    expect((await api.patch(`/environments/${randomUUID()}`, { name: '' }, { token: user.token })).status).toBe(422);
    expect(
      (await api.delete(`/environments/${randomUUID()}/roles/not-a-uuid`, undefined, { token: user.token })).status,
    ).toBe(422);
    expect((await api.get('/environments', { token: user.token })).status).toBe(422);
  });
});
