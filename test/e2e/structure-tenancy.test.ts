import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { setPlan } from '../helpers/plans.ts';
import { projectWithEnv } from '../helpers/tenancy.ts';

const ref = useTestStack();
const api = client(() => ref.stack.url);

/** A Team-plan project holding one of everything tenancy adds (groups, subgroups, custom roles, project users), and a stranger who is no member of it. */
async function world() {
  const owner = await signUp(api);
  await setPlan(owner.id, 'Team');
  const stranger = await signUp(api);
  const { projectId, envId } = await projectWithEnv(api, owner.token);
  const post = async (path: string, body: unknown) => {
    const res = await api.post(path, body, { token: owner.token });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };
  const groupId = await post('/groups', { project_id: projectId, environment_id: envId, name: 'g' });
  const subgroupId = await post('/subgroups', {
    project_id: projectId,
    environment_id: envId,
    group_id: groupId,
    name: 's',
  });
  const roleId = await post(`/projects/${projectId}/custom-roles`, { name: 'r', permissions: ['services.view'] });
  const personId = await post('/project-users', { project_id: projectId, name: 'p' });
  await api.post(
    `/projects/${projectId}/custom-roles/${roleId}/assignments`,
    { user_id: owner.id },
    { token: owner.token },
  );
  return { owner, stranger, projectId, envId, groupId, subgroupId, roleId, personId };
}

describe('tenancy of groups, subgroups, custom roles, project users and cost estimates', () => {
  it('gives byte-identical 404 bodies for a foreign project and a random one on every project-scoped route', async () => {
    const w = await world();
    const routes = (p: string): [string, string, unknown?][] => [
      ['GET', `/groups?project_id=${p}&environment_id=${w.envId}`],
      ['POST', '/groups', { project_id: p, environment_id: w.envId, name: 'n' }],
      ['GET', `/subgroups?project_id=${p}&environment_id=${w.envId}&group_id=${w.groupId}`],
      ['POST', '/subgroups', { project_id: p, environment_id: w.envId, group_id: w.groupId, name: 'n' }],
      ['GET', `/projects/${p}/custom-roles`],
      ['POST', `/projects/${p}/custom-roles`, { name: 'n', permissions: ['groups.view'] }],
      ['PATCH', `/projects/${p}/custom-roles/${w.roleId}`, { name: 'n' }],
      ['DELETE', `/projects/${p}/custom-roles/${w.roleId}`],
      ['GET', `/projects/${p}/custom-roles/${w.roleId}/assignments`],
      ['POST', `/projects/${p}/custom-roles/${w.roleId}/assignments`, { user_id: w.stranger.id }],
      ['DELETE', `/projects/${p}/custom-roles/${w.roleId}/assignments/${w.owner.id}`],
      ['GET', `/project-users?project_id=${p}`],
      ['POST', '/project-users', { project_id: p, name: 'n' }],
      ['GET', `/projects/${p}/costs/estimate`],
      ['GET', `/projects/${p}/costs/estimate?environment_id=${w.envId}`],
    ];
    const foreign = routes(w.projectId);
    const random = routes(randomUUID());
    for (let i = 0; i < foreign.length; i++) {
      const [method, path, body] = foreign[i];
      const a = await api.call(method, path, body, { token: w.stranger.token });
      const b = await api.call(random[i][0], random[i][1], random[i][2], { token: w.stranger.token });
      expect(a.status, `${method} ${path}`).toBe(404);
      expect(a.text, `${method} ${path}`).toBe('{"detail":"Project not found"}');
      expect(b.text, `${method} ${path}`).toBe(a.text);
    }
    // Nothing of the foreign project changed.
    const roles = await api.get(`/projects/${w.projectId}/custom-roles`, { token: w.owner.token });
    expect(roles.body.map((r: any) => r.name)).toEqual(['r']);
    const assignments = await api.get(`/projects/${w.projectId}/custom-roles/${w.roleId}/assignments`, {
      token: w.owner.token,
    });
    expect(assignments.body.map((a: any) => a.user_id)).toEqual([w.owner.id]);
  });

  it('gives byte-identical 404 bodies for foreign and random ids on every bare-id route', async () => {
    const w = await world();
    const routes: [string, string, string, unknown?][] = [
      ['PATCH', '/groups/{id}', w.groupId, { name: 'n' }],
      ['DELETE', '/groups/{id}', w.groupId],
      ['PATCH', '/subgroups/{id}', w.subgroupId, { name: 'n' }],
      ['DELETE', '/subgroups/{id}', w.subgroupId],
      ['GET', '/project-users/{id}', w.personId],
      ['PATCH', '/project-users/{id}', w.personId, { name: 'n' }],
      ['DELETE', '/project-users/{id}', w.personId],
    ];
    const detail: Record<string, string> = {
      groups: 'Group not found',
      subgroups: 'Subgroup not found',
      'project-users': 'Project user not found',
    };
    for (const [method, path, id, body] of routes) {
      const expected = JSON.stringify({ detail: detail[path.split('/')[1]] });
      const foreign = await api.call(method, path.replace('{id}', id), body, { token: w.stranger.token });
      const random = await api.call(method, path.replace('{id}', randomUUID()), body, { token: w.stranger.token });
      expect(foreign.status, `${method} ${path}`).toBe(404);
      expect(foreign.text, `${method} ${path}`).toBe(expected);
      expect(random.text, `${method} ${path}`).toBe(foreign.text);
    }
    // An id of another kind is no better than a random one, even for the owner.
    const wrongKind = await api.patch(`/subgroups/${w.groupId}`, { name: 'n' }, { token: w.owner.token });
    expect(wrongKind.text).toBe('{"detail":"Subgroup not found"}');
    const personAsGroup = await api.delete(`/groups/${w.personId}`, undefined, { token: w.owner.token });
    expect(personAsGroup.text).toBe('{"detail":"Group not found"}');
  });

  it('answers 404 for everything of a deleted project, even to its owner', async () => {
    const w = await world();
    expect((await api.delete(`/projects/${w.projectId}`, undefined, { token: w.owner.token })).status).toBe(204);
    const checks: [string, string, string][] = [
      ['GET', `/groups?project_id=${w.projectId}&environment_id=${w.envId}`, 'Project not found'],
      ['GET', `/projects/${w.projectId}/custom-roles`, 'Project not found'],
      ['GET', `/project-users?project_id=${w.projectId}`, 'Project not found'],
      ['PATCH', `/groups/${w.groupId}`, 'Group not found'],
      ['GET', `/project-users/${w.personId}`, 'Project user not found'],
    ];
    for (const [method, path, detail] of checks) {
      const res = await api.call(method, path, method === 'PATCH' ? { name: 'n' } : undefined, {
        token: w.owner.token,
      });
      expect(res.status, path).toBe(404);
      expect(res.body, path).toEqual({ detail });
    }
  });
});
