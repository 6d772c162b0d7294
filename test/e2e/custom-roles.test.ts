import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { setPlan } from '../helpers/plans.ts';
import { grantRole, projectWithEnv } from '../helpers/tenancy.ts';
import { linkFrom, readOutbox } from '../helpers/outbox.ts';
import { PERMISSIONS } from '#auth/permissions';

const ref = useTestStack();
const api = client(() => ref.stack.url);

const rolesPath = (projectId: string) => `/projects/${projectId}/custom-roles`;

async function makeRole(token: string, projectId: string, name: string, permissions: string[]) {
  const res = await api.post(rolesPath(projectId), { name, permissions }, { token });
  expect(res.status, res.text).toBe(201);
  return res.body;
}
async function assign(token: string, projectId: string, roleId: string, userId: string, environmentId?: string | null) {
  const res = await api.post(
    `${rolesPath(projectId)}/${roleId}/assignments`,
    { user_id: userId, environment_id: environmentId },
    { token },
  );
  expect(res.status, res.text).toBe(201);
  return res.body;
}
async function caps(token: string, projectId: string, envId?: string) {
  const res = await api.get(`/auth/me/capabilities?project_id=${projectId}${envId ? `&environment_id=${envId}` : ''}`, {
    token,
  });
  expect(res.status).toBe(200);
  return res.body.capabilities as string[];
}

/** An owner on a plan with custom roles, a project with two environments. */
async function teamProject() {
  const owner = await signUp(api);
  await setPlan(owner.id, 'Team');
  const { projectId, envId } = await projectWithEnv(api, owner.token);
  const staging = await api.post('/environments', { name: 'staging', project_id: projectId }, { token: owner.token });
  return { owner, projectId, envId, stagingId: staging.body.id as string };
}

describe('custom roles', () => {
  it('are refused on the Free plan with the limit message', async () => {
    const owner = await signUp(api);
    const { projectId } = await projectWithEnv(api, owner.token);
    const res = await api.post(
      rolesPath(projectId),
      { name: 'ops', permissions: ['services.manage'] },
      { token: owner.token },
    );
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      detail: "Custom role limit reached for your 'Free' plan (max 0). Please upgrade to create more custom roles.",
    });
  });

  it('are capped by the plan under concurrency, and deleting one frees its slot and its name', async () => {
    const owner = await signUp(api);
    await setPlan(owner.id, 'Starter'); // one custom role
    const { projectId } = await projectWithEnv(api, owner.token);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api.post(rolesPath(projectId), { name: `r${i}`, permissions: ['groups.manage'] }, { token: owner.token }),
      ),
    );
    const made = results.filter((r) => r.status === 201);
    expect(made).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(403);
      expect(r.body).toEqual({
        detail:
          "Custom role limit reached for your 'Starter' plan (max 1). Please upgrade to create more custom roles.",
      });
    }
    const role = made[0].body;
    expect((await api.delete(`${rolesPath(projectId)}/${role.id}`, undefined, { token: owner.token })).status).toBe(
      204,
    );
    const again = await makeRole(owner.token, projectId, role.name, ['groups.view']);
    expect(again.id).not.toBe(role.id);
  });

  it('are created, listed, changed and deleted in the documented shape', async () => {
    const { owner, projectId } = await teamProject();
    const role = await makeRole(owner.token, projectId, 'Network team', [
      'networks.manage',
      'networks.view',
      'networks.manage',
    ]);
    expect(role).toEqual({
      id: expect.any(String),
      project_id: projectId,
      name: 'Network team',
      description: null,
      permissions: ['networks.manage', 'networks.view'],
      updated_at: expect.any(String),
      deleted_at: null,
    });
    await makeRole(owner.token, projectId, 'auditors', ['services.view']);
    const dup = await api.post(
      rolesPath(projectId),
      { name: 'AUDITORS', permissions: ['services.view'] },
      { token: owner.token },
    );
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ detail: 'Custom role with this name already exists in this project' });
    expect((await api.get(rolesPath(projectId), { token: owner.token })).body.map((r: any) => r.name)).toEqual([
      'auditors',
      'Network team',
    ]);

    const patched = await api.patch(
      `${rolesPath(projectId)}/${role.id}`,
      { description: 'Owns the VLANs', permissions: ['connections.manage'] },
      { token: owner.token },
    );
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'Network team',
      description: 'Owns the VLANs',
      permissions: ['connections.manage'],
    });

    const since = new Date(Date.now() - 60_000).toISOString();
    expect((await api.delete(`${rolesPath(projectId)}/${role.id}`, undefined, { token: owner.token })).status).toBe(
      204,
    );
    expect((await api.get(rolesPath(projectId), { token: owner.token })).body.map((r: any) => r.name)).toEqual([
      'auditors',
    ]);
    const sync = await api.get(`${rolesPath(projectId)}?updated_since=${encodeURIComponent(since)}`, {
      token: owner.token,
    });
    expect(sync.body.find((r: any) => r.id === role.id).deleted_at).toEqual(expect.any(String));
    for (const [method, body] of [
      ['PATCH', { name: 'x' }],
      ['DELETE', undefined],
      ['GET', undefined],
    ] as const) {
      const path =
        method === 'GET' ? `${rolesPath(projectId)}/${role.id}/assignments` : `${rolesPath(projectId)}/${role.id}`;
      const res = await api.call(method, path, body, { token: owner.token });
      expect(res.status, method).toBe(404);
      expect(res.text).toBe('{"detail":"Custom role not found"}');
    }
  });

  it('accept only permission keys from the catalogue (422, before any lookup)', async () => {
    const { owner, projectId } = await teamProject();
    const bad = await api.post(
      rolesPath(projectId),
      { name: 'x', permissions: ['services.manage', 'everything'] },
      { token: owner.token },
    );
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'permissions', 1]);
    expect(
      (await api.post(rolesPath(randomUUID()), { name: 'x', permissions: ['root'] }, { token: owner.token })).status,
    ).toBe(422);
    expect((await api.post(rolesPath(projectId), { name: 'x', permissions: [] }, { token: owner.token })).status).toBe(
      422,
    );
    expect((await api.patch(`${rolesPath(projectId)}/${randomUUID()}`, {}, { token: owner.token })).status).toBe(422);
  });

  it('refuse a permissions list longer than the catalogue with 422 naming the field, before any lookup', async () => {
    const { owner, projectId } = await teamProject();
    const huge = Array.from({ length: 10_000 }, (_, i) => PERMISSIONS[i % PERMISSIONS.length]);
    const oneTooMany = [...PERMISSIONS, 'services.view'];
    const role = await makeRole(owner.token, projectId, 'everything', [...PERMISSIONS]);
    expect(role.permissions).toHaveLength(PERMISSIONS.length);
    for (const [method, path] of [
      ['post', rolesPath(projectId)],
      ['patch', `${rolesPath(projectId)}/${role.id}`],
      ['post', rolesPath(randomUUID())],
    ] as const) {
      for (const permissions of [huge, oneTooMany]) {
        const res = await api[method](path, { name: 'too many', permissions }, { token: owner.token });
        expect(res.status, `${method} ${path} ${permissions.length}`).toBe(422);
        expect(
          res.body.detail.map((d: any) => d.loc),
          `${method} ${path} ${permissions.length}`,
        ).toEqual([['body', 'permissions']]);
      }
    }
    expect(
      (await api.get(rolesPath(projectId), { token: owner.token })).body.map((r: any) => [
        r.name,
        r.permissions.length,
      ]),
    ).toEqual([['everything', PERMISSIONS.length]]);
  });

  it('are managed by the owner only; every member can read them', async () => {
    const { owner, projectId, envId } = await teamProject();
    const admin = await signUp(api);
    await grantRole(api, owner.token, envId, admin.id, 'administrator');
    const role = await makeRole(owner.token, projectId, 'ops', ['services.manage']);
    const attempts = [
      await api.post(rolesPath(projectId), { name: 'mine', permissions: ['services.view'] }, { token: admin.token }),
      await api.patch(`${rolesPath(projectId)}/${role.id}`, { name: 'x' }, { token: admin.token }),
      await api.delete(`${rolesPath(projectId)}/${role.id}`, undefined, { token: admin.token }),
      await api.post(`${rolesPath(projectId)}/${role.id}/assignments`, { user_id: admin.id }, { token: admin.token }),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'Project owner required' });
    }
    expect((await api.get(rolesPath(projectId), { token: admin.token })).body.map((r: any) => r.id)).toEqual([role.id]);
    expect((await api.get(`${rolesPath(projectId)}/${role.id}/assignments`, { token: admin.token })).status).toBe(200);
  });
});

describe('custom role assignments', () => {
  it('a project-wide role with env.roles.manage lets its holder assign environment roles, as capabilities show', async () => {
    const { owner, projectId, envId } = await teamProject();
    const lead = await signUp(api);
    const newcomer = await signUp(api);
    await grantRole(api, owner.token, envId, lead.id, 'viewer');
    await grantRole(api, owner.token, envId, newcomer.id, 'viewer');
    const before = await api.post(
      `/environments/${envId}/roles`,
      { user_id: newcomer.id, role: 'manager' },
      { token: lead.token },
    );
    expect(before.status).toBe(403);
    expect(before.body).toEqual({ detail: 'Not authorized to manage environment roles' });
    expect(await caps(lead.token, projectId, envId)).not.toContain('env.roles.manage');

    const role = await makeRole(owner.token, projectId, 'Role managers', ['env.roles.manage']);
    const assignment = await assign(owner.token, projectId, role.id, lead.id);
    expect(assignment).toEqual({
      id: expect.any(String),
      role_id: role.id,
      project_id: projectId,
      user_id: lead.id,
      environment_id: null,
      updated_at: expect.any(String),
      deleted_at: null,
    });
    expect(await caps(lead.token, projectId)).toContain('env.roles.manage');
    expect(await caps(lead.token, projectId, envId)).toContain('env.roles.manage');
    const granted = await api.post(
      `/environments/${envId}/roles`,
      { user_id: newcomer.id, role: 'manager' },
      { token: lead.token },
    );
    expect(granted.status).toBe(201);
    expect(granted.body).toMatchObject({ environment_id: envId, user_id: newcomer.id, role: 'manager' });
    expect(
      (await api.get(`${rolesPath(projectId)}/${role.id}/assignments`, { token: lead.token })).body.map(
        (a: any) => a.user_id,
      ),
    ).toEqual([lead.id]);
  });

  it('an environment-scoped role applies in that environment only; assigning again moves it', async () => {
    const { owner, projectId, envId, stagingId } = await teamProject();
    const dev = await signUp(api);
    const role = await makeRole(owner.token, projectId, 'Group editors', ['groups.manage']);
    // The owner's assignment makes a non-member a member.
    const first = await assign(owner.token, projectId, role.id, dev.id, stagingId);
    expect(
      (await api.get(`/projects/members/${projectId}`, { token: owner.token })).body.map((m: any) => m.user_id),
    ).toContain(dev.id);
    expect(await caps(dev.token, projectId, stagingId)).toContain('groups.manage');
    expect(await caps(dev.token, projectId, envId)).not.toContain('groups.manage');
    expect(await caps(dev.token, projectId)).not.toContain('groups.manage');
    const inStaging = await api.post(
      '/groups',
      { project_id: projectId, environment_id: stagingId, name: 'g' },
      { token: dev.token },
    );
    expect(inStaging.status).toBe(201);
    const inProduction = await api.post(
      '/groups',
      { project_id: projectId, environment_id: envId, name: 'g' },
      { token: dev.token },
    );
    expect(inProduction.status).toBe(403);
    expect(inProduction.body).toEqual({ detail: 'Not authorized to manage groups in this environment' });

    const moved = await assign(owner.token, projectId, role.id, dev.id, envId);
    expect(moved.id).toBe(first.id);
    expect(moved.environment_id).toBe(envId);
    expect(await caps(dev.token, projectId, envId)).toContain('groups.manage');
    expect(await caps(dev.token, projectId, stagingId)).not.toContain('groups.manage');
    expect((await api.get(`${rolesPath(projectId)}/${role.id}/assignments`, { token: owner.token })).body).toEqual([
      moved,
    ]);
  });

  it('changing or deleting the role, or withdrawing the assignment, changes what its holder may do at once', async () => {
    const { owner, projectId, envId } = await teamProject();
    const a = await signUp(api);
    const b = await signUp(api);
    const role = await makeRole(owner.token, projectId, 'People', ['project_users.manage']);
    await assign(owner.token, projectId, role.id, a.id);
    await assign(owner.token, projectId, role.id, b.id, envId);
    expect(await caps(a.token, projectId)).toContain('project_users.manage');

    await api.patch(
      `${rolesPath(projectId)}/${role.id}`,
      { permissions: ['connections.manage'] },
      { token: owner.token },
    );
    expect(await caps(a.token, projectId)).toEqual(expect.arrayContaining(['connections.manage']));
    expect(await caps(a.token, projectId)).not.toContain('project_users.manage');

    const withdrawn = await api.delete(`${rolesPath(projectId)}/${role.id}/assignments/${a.id}`, undefined, {
      token: owner.token,
    });
    expect(withdrawn.status).toBe(204);
    expect(await caps(a.token, projectId)).not.toContain('connections.manage');
    const twice = await api.delete(`${rolesPath(projectId)}/${role.id}/assignments/${a.id}`, undefined, {
      token: owner.token,
    });
    expect(twice.status).toBe(404);
    expect(twice.body).toEqual({ detail: 'Custom role assignment not found' });
    expect(
      (await api.get(`${rolesPath(projectId)}/${role.id}/assignments`, { token: owner.token })).body.map(
        (x: any) => x.user_id,
      ),
    ).toEqual([b.id]);

    expect(await caps(b.token, projectId, envId)).toContain('connections.manage');
    await api.delete(`${rolesPath(projectId)}/${role.id}`, undefined, { token: owner.token });
    expect(await caps(b.token, projectId, envId)).not.toContain('connections.manage');
    // Still a member (the role went, the membership stays).
    expect((await api.get(`/auth/me/capabilities?project_id=${projectId}`, { token: b.token })).body.is_member).toBe(
      true,
    );
  });

  it("refuses an unknown user, an environment outside the project and another project's role", async () => {
    const { owner, projectId } = await teamProject();
    const other = await teamProject();
    const user = await signUp(api);
    const role = await makeRole(owner.token, projectId, 'r', ['services.view']);
    const foreignRole = await makeRole(other.owner.token, other.projectId, 'theirs', ['services.view']);
    const ghost = await api.post(
      `${rolesPath(projectId)}/${role.id}/assignments`,
      { user_id: randomUUID() },
      { token: owner.token },
    );
    expect(ghost.status).toBe(404);
    expect(ghost.body).toEqual({ detail: 'User not found' });
    for (const environment_id of [other.envId, randomUUID()]) {
      const res = await api.post(
        `${rolesPath(projectId)}/${role.id}/assignments`,
        { user_id: user.id, environment_id },
        { token: owner.token },
      );
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: 'Environment not found or does not belong to project' });
    }
    for (const roleId of [foreignRole.id, randomUUID()]) {
      const res = await api.post(
        `${rolesPath(projectId)}/${roleId}/assignments`,
        { user_id: user.id },
        { token: owner.token },
      );
      expect(res.status).toBe(404);
      expect(res.text).toBe('{"detail":"Custom role not found"}');
    }
    expect(
      (await api.post(`${rolesPath(projectId)}/${role.id}/assignments`, { user_id: 'nope' }, { token: owner.token }))
        .status,
    ).toBe(422);
    // Nothing was written for the refused user.
    expect(
      (await api.get(`/projects/members/${projectId}`, { token: owner.token })).body.map((m: any) => m.user_id),
    ).not.toContain(user.id);
  });

  it("refuses a non-owner's assignment to a non-member exactly like an unknown id; the owner's makes a member, mailed and logged", async () => {
    const { owner, projectId, envId } = await teamProject();
    const manager = await signUp(api);
    const member = await signUp(api);
    const outsider = await signUp(api);
    await grantRole(api, owner.token, envId, member.id, 'viewer');
    const managers = await makeRole(owner.token, projectId, 'Project managers', ['project.manage']);
    await assign(owner.token, projectId, managers.id, manager.id);
    const role = await makeRole(owner.token, projectId, 'Floor editors', ['floors.manage']);

    const unknown = await api.post(
      `${rolesPath(projectId)}/${role.id}/assignments`,
      { user_id: randomUUID() },
      { token: manager.token },
    );
    expect([unknown.status, unknown.text]).toEqual([404, JSON.stringify({ detail: 'User not found' })]);
    for (const environment_id of [undefined, envId]) {
      const outside = await api.post(
        `${rolesPath(projectId)}/${role.id}/assignments`,
        { user_id: outsider.id, environment_id },
        { token: manager.token },
      );
      expect([outside.status, outside.text]).toEqual([unknown.status, unknown.text]);
    }
    expect((await api.get(`${rolesPath(projectId)}/${role.id}/assignments`, { token: owner.token })).body).toEqual([]);
    expect(
      (await api.get(`/projects/members/${projectId}`, { token: owner.token })).body.map((m: any) => m.user_id),
    ).not.toContain(outsider.id);
    expect(
      (await api.get(`/auth/me/capabilities?project_id=${projectId}`, { token: outsider.token })).body.is_member,
    ).toBe(false);
    // A member is the manager's to give a role.
    await assign(manager.token, projectId, role.id, member.id, envId);
    expect(await caps(member.token, projectId, envId)).toContain('floors.manage');
    await ref.stack.queues.drain();
    expect(await readOutbox(ref.stack.dataDir, { to: outsider.email })).toEqual([]);
    expect(await readOutbox(ref.stack.dataDir, { to: member.email })).toHaveLength(1); // the owner's environment role made them a member

    // The owner's assignment makes the outsider a member holding the role, tells them, and logs the membership.
    await assign(owner.token, projectId, role.id, outsider.id);
    expect(await caps(outsider.token, projectId)).toContain('floors.manage');
    await ref.stack.queues.drain();
    const mails = await readOutbox(ref.stack.dataDir, { to: outsider.email });
    expect(mails).toHaveLength(1);
    expect(mails[0].text).toContain('with the custom role "Floor editors".');
    expect(linkFrom(mails[0], `/p/${projectId}`).pathname).toBe(`/p/${projectId}`);
    const log = await api.get(`/projects/${projectId}/audit-log?entity_type=member&entity_id=${outsider.id}`, {
      token: owner.token,
    });
    expect(log.body).toEqual([
      expect.objectContaining({
        action: 'member.create',
        actor: expect.objectContaining({ id: owner.id }),
        after: { user_id: outsider.id, email: outsider.email, role: 'member' },
        summary: { via: 'custom_role_assignment' },
      }),
    ]);
  });

  it('keeps one assignment per user and role under concurrent assignments, and the grant held is its scope: 5 rounds', async () => {
    const { owner, projectId, envId, stagingId } = await teamProject();
    const role = await makeRole(owner.token, projectId, 'r', ['floors.manage']);
    for (let round = 0; round < 5; round++) {
      const dev = await signUp(api);
      const scopes = [envId, stagingId, null, envId, stagingId, null];
      const results = await Promise.all(
        // Each round starts the race from another scope.
        scopes.map((_, i) =>
          api.post(
            `${rolesPath(projectId)}/${role.id}/assignments`,
            { user_id: dev.id, environment_id: scopes[(i + round) % scopes.length] },
            { token: owner.token },
          ),
        ),
      );
      for (const r of results) expect(r.status, r.text).toBe(201);
      const list = (await api.get(`${rolesPath(projectId)}/${role.id}/assignments`, { token: owner.token })).body;
      const mine = list.filter((a: { user_id: string }) => a.user_id === dev.id);
      expect(mine).toHaveLength(1);
      // The grant the member holds is exactly the stored assignment's scope.
      const where = mine[0].environment_id;
      expect(await caps(dev.token, projectId, envId)).toEqual(
        where === envId || where === null
          ? expect.arrayContaining(['floors.manage'])
          : expect.not.arrayContaining(['floors.manage']),
      );
      expect(await caps(dev.token, projectId, stagingId)).toEqual(
        where === stagingId || where === null
          ? expect.arrayContaining(['floors.manage'])
          : expect.not.arrayContaining(['floors.manage']),
      );
      expect((await caps(dev.token, projectId)).includes('floors.manage')).toBe(where === null);
    }
  });
});
