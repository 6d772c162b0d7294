import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp, uniqueEmail } from '../helpers/http.ts';
import { setPlan } from '../helpers/plans.ts';
import { grantRole, projectWithEnv } from '../helpers/tenancy.ts';
import { OWNER_RIGHTS } from '#auth/permissions';

/**
 * The owner's actions (docs/decisions/0921): `project.manage` (settings, custom roles and their
 * assignments) is the owner's or a custom role's that grants it; deleting the project, invitations,
 * removing someone else and admitting a non-member are the owner membership's alone. Every such route,
 * asked by the owner, by a member whose custom role grants `project.manage`, and by a plain member.
 * (Cancelling someone else's job: test/e2e/impex-jobs.test.ts.)
 */
// One mail a minute per invitation by default: the owner's resend here follows its creation at once.
const ref = useTestStack({ INVITATION_RATE_LIMIT_PER_INVITATION_PER_MINUTE: '10' });
const api = client(() => ref.stack.url);

const OWNER_REQUIRED = { detail: 'Project owner required' };
type Caller = Awaited<ReturnType<typeof signUp>>;

/** A Team-plan project with its owner, a "manager" holding a project-wide custom role granting project.manage, and a plain member (viewer). */
async function cast() {
  const owner = await signUp(api);
  await setPlan(owner.id, 'Team');
  const { projectId, envId } = await projectWithEnv(api, owner.token);
  const manager = await signUp(api);
  const member = await signUp(api);
  await grantRole(api, owner.token, envId, member.id, 'viewer');
  const role = await api.post(
    `/projects/${projectId}/custom-roles`,
    { name: 'Project managers', permissions: ['project.manage'] },
    { token: owner.token },
  );
  expect(role.status, role.text).toBe(201);
  const assigned = await api.post(
    `/projects/${projectId}/custom-roles/${role.body.id}/assignments`,
    { user_id: manager.id },
    { token: owner.token },
  );
  expect(assigned.status, assigned.text).toBe(201);
  const caps = await api.get(`/auth/me/capabilities?project_id=${projectId}`, { token: manager.token });
  expect(caps.body).toMatchObject({
    is_owner: false,
    is_member: true,
    capabilities: expect.arrayContaining(['project.manage']),
  });
  return { owner, manager, member, projectId, envId };
}

const memberIds = async (projectId: string, token: string) =>
  ((await api.get(`/projects/members/${projectId}`, { token })).body as { user_id: string }[]).map((m) => m.user_id);

describe('project.manage: the owner, or a custom role granting it', () => {
  it('PATCH /projects/{id}/settings: the owner and the manager change them; a plain member gets 403', async () => {
    const { owner, manager, member, projectId } = await cast();
    const byOwner = await api.patch(
      `/projects/${projectId}/settings`,
      { cost_calc_enabled: true },
      { token: owner.token },
    );
    expect([byOwner.status, byOwner.body.cost_calc_enabled, byOwner.body.is_owner]).toEqual([200, true, true]);
    const byManager = await api.patch(
      `/projects/${projectId}/settings`,
      { cost_calc_enabled: false },
      { token: manager.token },
    );
    expect([byManager.status, byManager.body.cost_calc_enabled, byManager.body.is_owner]).toEqual([200, false, false]);
    const byMember = await api.patch(
      `/projects/${projectId}/settings`,
      { cost_calc_enabled: true },
      { token: member.token },
    );
    expect([byMember.status, byMember.body]).toEqual([403, OWNER_REQUIRED]);
    const listed = (await api.get('/projects', { token: owner.token })).body.find(
      (p: { id: string }) => p.id === projectId,
    );
    expect(listed.cost_calc_enabled).toBe(false);
  });

  it('custom roles and their assignments: the owner and the manager create, change, assign, withdraw and delete; a plain member gets 403 at each', async () => {
    const { owner, manager, member, projectId } = await cast();
    const roles = `/projects/${projectId}/custom-roles`;
    for (const [who, caller] of [
      ['owner', owner],
      ['manager', manager],
    ] as [string, Caller][]) {
      const made = await api.post(
        roles,
        { name: `ops by ${who}`, permissions: ['services.manage'] },
        { token: caller.token },
      );
      expect(made.status, made.text).toBe(201);
      const id = made.body.id as string;
      expect((await api.patch(`${roles}/${id}`, { description: who }, { token: caller.token })).status).toBe(200);
      expect(
        (await api.post(`${roles}/${id}/assignments`, { user_id: member.id }, { token: caller.token })).status,
      ).toBe(201);
      expect(
        (await api.delete(`${roles}/${id}/assignments/${member.id}`, undefined, { token: caller.token })).status,
      ).toBe(204);
      expect((await api.delete(`${roles}/${id}`, undefined, { token: caller.token })).status).toBe(204);
    }
    const kept = await api.post(roles, { name: 'kept', permissions: ['services.view'] }, { token: owner.token });
    await api.post(`${roles}/${kept.body.id}/assignments`, { user_id: manager.id }, { token: owner.token });
    const attempts = [
      await api.post(roles, { name: 'mine', permissions: ['services.view'] }, { token: member.token }),
      await api.patch(`${roles}/${kept.body.id}`, { name: 'renamed' }, { token: member.token }),
      await api.post(`${roles}/${kept.body.id}/assignments`, { user_id: member.id }, { token: member.token }),
      await api.delete(`${roles}/${kept.body.id}/assignments/${manager.id}`, undefined, { token: member.token }),
      await api.delete(`${roles}/${kept.body.id}`, undefined, { token: member.token }),
    ];
    for (const res of attempts) expect([res.status, res.body]).toEqual([403, OWNER_REQUIRED]);
    const listed = (await api.get(roles, { token: member.token })).body as { id: string; name: string }[];
    expect(listed.map((r) => r.name).sort()).toEqual(['Project managers', 'kept']);
    expect(
      (await api.get(`${roles}/${kept.body.id}/assignments`, { token: owner.token })).body.map(
        (a: { user_id: string }) => a.user_id,
      ),
    ).toEqual([manager.id]);
  });
});

describe("the owner membership's alone: a custom role granting project.manage does not open it", () => {
  it("no custom role can name an owner's right: 422 naming the key, nothing made", async () => {
    const { owner, projectId } = await cast();
    for (const right of OWNER_RIGHTS) {
      const res = await api.post(
        `/projects/${projectId}/custom-roles`,
        { name: right, permissions: ['project.manage', right] },
        { token: owner.token },
      );
      expect([res.status, res.body.detail[0].loc]).toEqual([422, ['body', 'permissions', 1]]);
    }
    expect(
      (await api.get(`/projects/${projectId}/custom-roles`, { token: owner.token })).body.map(
        (r: { name: string }) => r.name,
      ),
    ).toEqual(['Project managers']);
  });

  it('DELETE /projects/{id}: the manager and a plain member get 403 and the project stays; the owner deletes it', async () => {
    const { owner, manager, member, projectId } = await cast();
    for (const caller of [manager, member]) {
      const res = await api.delete(`/projects/${projectId}`, undefined, { token: caller.token });
      expect([res.status, res.body]).toEqual([403, OWNER_REQUIRED]);
    }
    expect((await api.get('/projects', { token: manager.token })).body.map((p: { id: string }) => p.id)).toContain(
      projectId,
    );
    expect((await api.delete(`/projects/${projectId}`, undefined, { token: owner.token })).status).toBe(204);
    expect((await api.get('/projects', { token: owner.token })).body.map((p: { id: string }) => p.id)).not.toContain(
      projectId,
    );
  });

  it('invitations (create, list, resend, revoke): the manager and a plain member get 403 at each; the owner does all four', async () => {
    const { owner, manager, member, projectId } = await cast();
    const invite = await api.post(
      '/invites',
      { project_id: projectId, invited_email: uniqueEmail('invitee') },
      { token: owner.token },
    );
    expect(invite.status, invite.text).toBe(201);
    for (const caller of [manager, member]) {
      const attempts = [
        await api.post(
          '/invites',
          { project_id: projectId, invited_email: uniqueEmail('theirs') },
          { token: caller.token },
        ),
        await api.get(`/invites?project_id=${projectId}`, { token: caller.token }),
        await api.post(`/invites/${invite.body.id}/resend`, undefined, { token: caller.token }),
        await api.delete(`/invites/${invite.body.id}`, undefined, { token: caller.token }),
      ];
      for (const res of attempts) expect([res.status, res.body]).toEqual([403, OWNER_REQUIRED]);
    }
    const listed = await api.get(`/invites?project_id=${projectId}`, { token: owner.token });
    expect([listed.status, listed.body]).toEqual([200, [invite.body]]);
    const resent = await api.post(`/invites/${invite.body.id}/resend`, undefined, { token: owner.token });
    expect([resent.status, resent.body.id]).toEqual([200, invite.body.id]);
    expect((await api.delete(`/invites/${invite.body.id}`, undefined, { token: owner.token })).status).toBe(204);
  });

  it('DELETE /projects/{id}/members/{user_id} of someone else: the manager and a plain member get 403; the owner removes; each may leave', async () => {
    const { owner, manager, member, projectId } = await cast();
    for (const [caller, target] of [
      [manager, member],
      [member, manager],
      [manager, owner],
    ]) {
      const res = await api.delete(`/projects/${projectId}/members/${target.id}`, undefined, { token: caller.token });
      expect([res.status, res.body]).toEqual([403, OWNER_REQUIRED]);
    }
    expect((await memberIds(projectId, owner.token)).sort()).toEqual([owner.id, manager.id, member.id].sort());
    expect(
      (await api.delete(`/projects/${projectId}/members/${member.id}`, undefined, { token: owner.token })).status,
    ).toBe(204);
    expect(
      (await api.delete(`/projects/${projectId}/members/${manager.id}`, undefined, { token: manager.token })).status,
    ).toBe(204);
    expect(await memberIds(projectId, owner.token)).toEqual([owner.id]);
  });

  it("a role given to an account that is no member: the manager gets what an unknown id gets, a plain member 403; the owner's makes a member", async () => {
    const { owner, manager, member, projectId, envId } = await cast();
    const outsider = await signUp(api);
    const role = await api.post(
      `/projects/${projectId}/custom-roles`,
      { name: 'readers', permissions: ['services.view'] },
      { token: owner.token },
    );
    const assignments = `/projects/${projectId}/custom-roles/${role.body.id}/assignments`;
    const byManager = await api.post(assignments, { user_id: outsider.id }, { token: manager.token });
    expect([byManager.status, byManager.body]).toEqual([404, { detail: 'User not found' }]);
    const byMember = await api.post(assignments, { user_id: outsider.id }, { token: member.token });
    expect([byMember.status, byMember.body]).toEqual([403, OWNER_REQUIRED]);
    for (const caller of [manager, member]) {
      const envRole = await api.post(
        `/environments/${envId}/roles`,
        { user_id: outsider.id, role: 'viewer' },
        { token: caller.token },
      );
      expect([envRole.status, envRole.body]).toEqual([403, { detail: 'Not authorized to manage environment roles' }]);
    }
    expect(await memberIds(projectId, owner.token)).not.toContain(outsider.id);
    expect((await api.post(assignments, { user_id: outsider.id }, { token: owner.token })).status).toBe(201);
    expect(await memberIds(projectId, owner.token)).toContain(outsider.id);
    const later = await signUp(api);
    expect(
      (await api.post(`/environments/${envId}/roles`, { user_id: later.id, role: 'viewer' }, { token: owner.token }))
        .status,
    ).toBe(201);
    expect(await memberIds(projectId, owner.token)).toContain(later.id);
  });
});
