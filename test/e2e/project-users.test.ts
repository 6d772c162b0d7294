import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { setPlan } from '../helpers/plans.ts';
import { grantRole, projectWithEnv } from '../helpers/tenancy.ts';

const ref = useTestStack();
const api = client(() => ref.stack.url);

async function addPerson(token: string, projectId: string, body: Record<string, unknown>) {
  const res = await api.post('/project-users', { project_id: projectId, ...body }, { token });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe('project users', () => {
  it('are created, read, listed, changed and soft-deleted in the documented shape', async () => {
    const owner = await signUp(api);
    await setPlan(owner.id, 'Starter');
    const { projectId } = await projectWithEnv(api, owner.token);
    const ada = await addPerson(owner.token, projectId, {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      job_title: 'SRE',
      phone: '+44 20 7946 0000',
    });
    expect(ada).toEqual({
      id: expect.any(String),
      project_id: projectId,
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      job_title: 'SRE',
      phone: '+44 20 7946 0000',
      notes: null,
      updated_at: expect.any(String),
      deleted_at: null,
    });
    expect((await api.get(`/project-users/${ada.id}`, { token: owner.token })).body).toEqual(ada);
    const bob = await addPerson(owner.token, projectId, { name: 'bob' });
    expect(bob).toMatchObject({ email: null, job_title: null, phone: null, notes: null });
    expect(
      (await api.get(`/project-users?project_id=${projectId}`, { token: owner.token })).body.map((p: any) => p.name),
    ).toEqual(['Ada Lovelace', 'bob']);

    const patched = await api.patch(
      `/project-users/${ada.id}`,
      { job_title: 'Head of SRE', phone: null, notes: 'On call in March' },
      { token: owner.token },
    );
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      job_title: 'Head of SRE',
      phone: null,
      notes: 'On call in March',
    });
    expect((await api.get(`/project-users/${ada.id}`, { token: owner.token })).body).toEqual(patched.body);

    const since = new Date(Date.now() - 60_000).toISOString();
    expect((await api.delete(`/project-users/${bob.id}`, undefined, { token: owner.token })).status).toBe(204);
    expect(
      (await api.get(`/project-users?project_id=${projectId}`, { token: owner.token })).body.map((p: any) => p.id),
    ).toEqual([ada.id]);
    const sync = await api.get(`/project-users?project_id=${projectId}&updated_since=${encodeURIComponent(since)}`, {
      token: owner.token,
    });
    expect(sync.body.find((p: any) => p.id === bob.id).deleted_at).toEqual(expect.any(String));
    expect(sync.headers.get('x-sync-timestamp')).toEqual(expect.any(String));
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const res = await api.call(method, `/project-users/${bob.id}`, method === 'PATCH' ? { name: 'x' } : undefined, {
        token: owner.token,
      });
      expect(res.status, method).toBe(404);
      expect(res.text).toBe('{"detail":"Project user not found"}');
    }
  });

  it('are capped by the plan, also under concurrency; deleting one frees its slot', async () => {
    const owner = await signUp(api); // Free: one project user
    const { projectId } = await projectWithEnv(api, owner.token);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api.post('/project-users', { project_id: projectId, name: `p${i}` }, { token: owner.token }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(403);
      expect(r.body).toEqual({
        detail: "Project user limit reached for your 'Free' plan (max 1). Please upgrade to add more project users.",
      });
    }
    const only = results.find((r) => r.status === 201)!.body;
    await api.delete(`/project-users/${only.id}`, undefined, { token: owner.token });
    await addPerson(owner.token, projectId, { name: 'replacement' });
  });

  it('every member reads them; managing needs the owner or project_users.manage', async () => {
    const owner = await signUp(api);
    await setPlan(owner.id, 'Team');
    const admin = await signUp(api);
    const helper = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    await grantRole(api, owner.token, envId, admin.id, 'administrator');
    const person = await addPerson(owner.token, projectId, { name: 'Grace' });
    expect((await api.get(`/project-users?project_id=${projectId}`, { token: admin.token })).body).toHaveLength(1);
    expect((await api.get(`/project-users/${person.id}`, { token: admin.token })).status).toBe(200);
    const refusals = [
      await api.post('/project-users', { project_id: projectId, name: 'x' }, { token: admin.token }),
      await api.patch(`/project-users/${person.id}`, { name: 'x' }, { token: admin.token }),
      await api.delete(`/project-users/${person.id}`, undefined, { token: admin.token }),
    ];
    for (const res of refusals) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'Not authorized to manage project users in this project' });
    }
    const role = await api.post(
      `/projects/${projectId}/custom-roles`,
      { name: 'HR', permissions: ['project_users.manage'] },
      { token: owner.token },
    );
    await api.post(
      `/projects/${projectId}/custom-roles/${role.body.id}/assignments`,
      { user_id: helper.id },
      { token: owner.token },
    );
    await addPerson(helper.token, projectId, { name: 'Added by HR' });
    expect(
      (await api.patch(`/project-users/${person.id}`, { name: 'Grace Hopper' }, { token: helper.token })).body.name,
    ).toBe('Grace Hopper');
  });

  it('validates before any lookup (422)', async () => {
    const user = await signUp(api);
    const badEmail = await api.post(
      '/project-users',
      { project_id: randomUUID(), name: 'x', email: 'not-an-address' },
      { token: user.token },
    );
    expect(badEmail.status).toBe(422);
    expect(badEmail.body.detail[0].loc).toEqual(['body', 'email']);
    expect((await api.post('/project-users', { project_id: randomUUID() }, { token: user.token })).status).toBe(422);
    expect((await api.patch(`/project-users/${randomUUID()}`, {}, { token: user.token })).status).toBe(422);
    expect((await api.patch(`/project-users/${randomUUID()}`, { name: '' }, { token: user.token })).status).toBe(422);
    expect((await api.get('/project-users', { token: user.token })).status).toBe(422);
  });
});
