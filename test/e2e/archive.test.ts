import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { setPlan } from '../helpers/plans.ts';
import { frozenClock } from '../helpers/sign-in.ts';
import { createFloor, createService, expectSameNotFound, newEnv, ownerWithEnv, readItem } from '../helpers/catalog.ts';
import { seedServices } from '../helpers/seed.ts';
import { keys } from '#db/keys';
import { appContext } from '#shared/context';
import { archiveSelection } from '#domain/lifecycle';
import { PLAN_CATALOGUE, listSubscriptions, resetPlanCache, type Plan } from '#domain/billing';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';

/** Archive and restore, and the limits through them. */
const clock = frozenClock();
const ref = useTestStack({}, { clock });
const api = client(() => ref.stack.url);

const KINDS = ['services', 'environments', 'project_users', 'api_keys', 'service_floors'] as const;
type Kind = (typeof KINDS)[number];
type Selection = Partial<Record<Kind, string[]>>;
const ZERO = { services: 0, environments: 0, project_users: 0, api_keys: 0, service_floors: 0 };
const NOT_FOUND: Record<Kind, string> = {
  services: 'Service not found',
  environments: 'Environment not found',
  project_users: 'Project user not found',
  api_keys: 'API key not found',
  service_floors: 'ServiceFloor not found',
};
const RESTORE_ENV_FIRST = 'The environment is archived: restore the environment first';
const serviceLimit = (plan: string, max: number) =>
  `Service limit reached for your '${plan}' plan (max ${max} per project including add-ons). Please upgrade or archive services.`;

const archive = (token: string, body: unknown) => api.post('/me/mark-archived', body, { token });
const restore = (token: string, body: unknown) => api.post('/me/unarchive', body, { token });
const summary = async (token: string) => {
  const res = await api.get('/me/archived/summary', { token });
  expect(res.status, res.text).toBe(200);
  return res.body;
};

async function archived(token: string, body: Selection) {
  const res = await archive(token, body);
  expect(res.status, res.text).toBe(200);
  return res.body;
}
async function restored(token: string, body: Selection) {
  const res = await restore(token, body);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

const servicesOf = async (token: string, projectId: string, envId: string, extra = '') => {
  const res = await api.get(`/services?project_id=${projectId}&environment_id=${envId}${extra}`, { token });
  expect(res.status, res.text).toBe(200);
  return (res.body as { id: string }[]).map((s) => s.id);
};
const counters = async (projectId: string, envId?: string) => {
  const project = await readItem(keys.project(projectId));
  const env = envId ? await readItem(keys.environment(projectId, envId)) : undefined;
  return {
    project: {
      env_count: project!.env_count,
      service_count: project!.service_count,
      project_user_count: project!.project_user_count,
    },
    env: env?.service_count,
  };
};

async function newProjectUser(token: string, projectId: string, name = `person-${randomUUID().slice(0, 6)}`) {
  const res = await api.post('/project-users', { project_id: projectId, name }, { token });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; name: string };
}
async function newApiKey(token: string, path = '/me/api-keys', name = `key-${randomUUID().slice(0, 6)}`) {
  const res = await api.post(path, { name }, { token });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; name: string };
}

describe('POST /me/mark-archived and /me/unarchive: validation (422, after authentication)', () => {
  const bad: [string, unknown, (string | number)[]][] = [
    ['no ids at all', {}, ['body']],
    ['only empty lists', { services: [], api_keys: [] }, ['body']],
    ['a malformed id', { services: ['not-a-uuid'] }, ['body', 'services', 0]],
    [
      'more than 100 ids of a kind',
      { project_users: Array.from({ length: 101 }, () => randomUUID()) },
      ['body', 'project_users'],
    ],
    ['a kind that is not a list', { environments: randomUUID() }, ['body', 'environments']],
  ];
  for (const path of ['/me/mark-archived', '/me/unarchive']) {
    for (const [what, body, loc] of bad) {
      it(`${path}: ${what} is a 422 at ${JSON.stringify(loc)} for a signed-in caller, 401 for anyone else`, async () => {
        const anonymous = await api.post(path, body);
        expect([anonymous.status, anonymous.body]).toEqual([401, { detail: 'Not authenticated' }]);
        const { token } = await signUp(api);
        const res = await api.post(path, body, { token });
        expect(res.status, res.text).toBe(422);
        expect(res.body.detail[0].loc).toEqual(loc);
      });
    }
    it(`${path}: names the body when no id is given`, async () => {
      const { token } = await signUp(api);
      const res = await api.post(path, { services: [] }, { token });
      expect(res.body).toEqual({ detail: [{ loc: ['body'], msg: 'At least one id is required', type: 'custom' }] });
    });
    it(`${path}: needs a signed-in caller`, async () => {
      expect((await api.post(path, { services: [randomUUID()] })).status).toBe(401);
    });
  }
  it('GET /me/archived/* needs a signed-in caller', async () => {
    for (const path of ['summary', 'services', 'environments', 'project-users', 'api-keys', 'service-floors'])
      expect((await api.get(`/me/archived/${path}`)).status).toBe(401);
  });
});

describe('archiving and restoring a service', () => {
  it('hides it from lists and changes, gives both slots back, and restores it as it was', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Starter');
    const kept = await createService(api, token, projectId, envId, { name: 'kept' });
    const svc = await createService(api, token, projectId, envId, { name: 'archived one', tags: ['x'] });
    expect(await summary(token)).toEqual(ZERO);
    clock.advance(1000);

    const res = await archived(token, { services: [svc.id] });
    expect(res).toEqual({
      counts: { ...ZERO, services: 1 },
      items: {
        services: [{ id: svc.id, name: 'archived one' }],
        environments: [],
        project_users: [],
        api_keys: [],
        service_floors: [],
      },
      refused: [],
    });
    expect(await servicesOf(token, projectId, envId)).toEqual([kept.id]);
    expect(await counters(projectId, envId)).toMatchObject({ project: { service_count: 1 }, env: 1 });
    // Not reachable, not changeable, not deletable until restored (the same 404 as an unknown id).
    for (const r of [
      await api.get(`/services/${svc.id}`, { token }),
      await api.patch(`/services/${svc.id}`, { name: 'x' }, { token }),
      await api.delete(`/services/${svc.id}`, undefined, { token }),
    ]) {
      expectSameNotFound(r, await api.get(`/services/${randomUUID()}`, { token }), NOT_FOUND.services);
    }
    const item = await readItem(keys.service(projectId, envId, svc.id));
    expect(item).toMatchObject({
      archived_at: clock.now().toISOString(),
      updated_at: clock.now().toISOString(),
      deleted_at: null,
    });
    expect(await readItem(keys.archived(svc.owner_user_id, 'services', svc.id))).toMatchObject({
      kind: 'services',
      id: svc.id,
      project_id: projectId,
      environment_id: envId,
      name: 'archived one',
    });

    expect(await summary(token)).toEqual({ ...ZERO, services: 1 });
    const list = await api.get('/me/archived/services', { token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      { ...svc, updated_at: clock.now().toISOString(), archived_at: clock.now().toISOString() },
    ]);

    clock.advance(1000);
    const back = await restored(token, { services: [svc.id] });
    expect(back.counts).toEqual({ ...ZERO, services: 1 });
    expect(back.items.services).toEqual([{ id: svc.id, name: 'archived one' }]);
    expect((await servicesOf(token, projectId, envId)).sort()).toEqual([kept.id, svc.id].sort());
    expect(await counters(projectId, envId)).toMatchObject({ project: { service_count: 2 }, env: 2 });
    const again = await api.get(`/services/${svc.id}`, { token });
    expect(again.body).toEqual({ ...svc, updated_at: clock.now().toISOString() });
    expect(await readItem(keys.archived(svc.owner_user_id, 'services', svc.id))).toBeUndefined();
    expect(await summary(token)).toEqual(ZERO);
    expect((await api.get('/me/archived/services', { token })).body).toEqual([]);
    // Changeable again.
    expect((await api.patch(`/services/${svc.id}`, { name: 'renamed' }, { token })).status).toBe(200);
  });

  it('is still seen by updated_since syncs when it is archived and when it comes back', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Starter');
    const svc = await createService(api, token, projectId, envId);
    clock.advance(1000);
    const since = encodeURIComponent(clock.now().toISOString());
    expect(await servicesOf(token, projectId, envId, `&updated_since=${since}`)).toEqual([]);
    await archived(token, { services: [svc.id] });
    expect(await servicesOf(token, projectId, envId)).toEqual([]);
    expect(await servicesOf(token, projectId, envId, `&updated_since=${since}`)).toEqual([svc.id]);
    clock.advance(1000);
    const later = encodeURIComponent(clock.now().toISOString());
    await restored(token, { services: [svc.id] });
    expect(await servicesOf(token, projectId, envId, `&updated_since=${later}`)).toEqual([svc.id]);
  });

  it('lists archived resources newest archived first, in their usual shape (type and group names resolved)', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Starter');
    const floor = await createFloor(api, token, projectId, envId, { type: 'container', hostname: 'h1' });
    const a = await createService(api, token, projectId, envId, { name: 'a', service_floor_id: floor.id });
    const b = await createService(api, token, projectId, envId, { name: 'b' });
    expect(a.type).toBe('container');
    await archived(token, { services: [b.id] });
    clock.advance(1000);
    await archived(token, { services: [a.id] });
    const list = await api.get('/me/archived/services', { token });
    expect(list.body.map((s: { name: string }) => s.name)).toEqual(['a', 'b']);
    expect(list.body[0]).toMatchObject({ type: 'container', service_floor_id: floor.id, group_name: null });
    expect(Object.keys(list.body[0])).toEqual([...Object.keys(a), 'archived_at']);
  });
});

describe('404: unknown, foreign, not live or not archived ids', () => {
  async function everyKind(token: string, projectId: string, envId: string) {
    const svc = await createService(api, token, projectId, envId);
    const floor = await createFloor(api, token, projectId, envId);
    const person = await newProjectUser(token, projectId);
    const key = await newApiKey(token);
    const env = await newEnv(api, token, projectId);
    return {
      services: svc.id,
      environments: env,
      project_users: person.id,
      api_keys: key.id,
      service_floors: floor.id,
    } as Record<Kind, string>;
  }

  it("answers another account's ids exactly as unknown ids, for every kind, both ways, and writes nothing", async () => {
    const owner = await ownerWithEnv(api, 'Starter');
    const theirs = await everyKind(owner.token, owner.projectId, owner.envId);
    const intruder = await ownerWithEnv(api, 'Starter');
    const mine = await everyKind(intruder.token, intruder.projectId, intruder.envId);
    for (const kind of KINDS) {
      for (const call of [archive, restore]) {
        const foreign = await call(intruder.token, { [kind]: [theirs[kind]] });
        const unknown = await call(intruder.token, { [kind]: [randomUUID()] });
        expectSameNotFound(foreign, unknown, NOT_FOUND[kind]);
        // One bad id refuses the whole request: the caller's own id in it is not archived either.
        const mixed = await call(intruder.token, { [kind]: [mine[kind], theirs[kind]] });
        expect(mixed.status).toBe(404);
      }
    }
    expect(await summary(intruder.token)).toEqual(ZERO);
    expect(await summary(owner.token)).toEqual(ZERO);
  });

  it("refuses a project member who is not the owner: only the owner's plan slots are theirs to archive", async () => {
    const owner = await ownerWithEnv(api, 'Starter');
    const svc = await createService(api, owner.token, owner.projectId, owner.envId);
    const member = await signUp(api);
    const grant = await api.post(
      `/environments/${owner.envId}/roles`,
      { user_id: member.id, role: 'administrator' },
      { token: owner.token },
    );
    expect(grant.status, grant.text).toBe(201);
    const res = await archive(member.token, { services: [svc.id] });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: NOT_FOUND.services });
    expect(await servicesOf(owner.token, owner.projectId, owner.envId)).toEqual([svc.id]);
  });

  it('refuses archiving what is already archived or deleted, and restoring what is live', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Starter');
    const [a, b, c] = [
      await createService(api, token, projectId, envId),
      await createService(api, token, projectId, envId),
      await createService(api, token, projectId, envId),
    ];
    await archived(token, { services: [a.id] });
    expect((await archive(token, { services: [a.id] })).status).toBe(404);
    expect((await api.delete(`/services/${b.id}`, undefined, { token })).status).toBe(204);
    expect((await archive(token, { services: [b.id] })).status).toBe(404);
    expect((await restore(token, { services: [b.id] })).status).toBe(404);
    expect((await restore(token, { services: [c.id] })).status).toBe(404);
    // Nothing moved: a is archived, c is live, the counters say 1.
    expect(await servicesOf(token, projectId, envId)).toEqual([c.id]);
    expect(await counters(projectId, envId)).toMatchObject({ project: { service_count: 1 }, env: 1 });
  });

  it('archives nothing when one id of the selection is refused', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Starter');
    const svc = await createService(api, token, projectId, envId);
    const person = await newProjectUser(token, projectId);
    const res = await archive(token, { services: [svc.id], project_users: [person.id, randomUUID()] });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: NOT_FOUND.project_users });
    expect(await servicesOf(token, projectId, envId)).toEqual([svc.id]);
    expect(await summary(token)).toEqual(ZERO);
    expect(await counters(projectId, envId)).toMatchObject({
      project: { service_count: 1, project_user_count: 1 },
      env: 1,
    });
  });

  it('archived items of a deleted project are gone with it', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Starter');
    const svc = await createService(api, token, projectId, envId);
    await archived(token, { services: [svc.id] });
    expect((await api.delete(`/projects/${projectId}`, undefined, { token })).status).toBe(204);
    expect(await summary(token)).toEqual(ZERO);
    expect((await api.get('/me/archived/services', { token })).body).toEqual([]);
    expect((await restore(token, { services: [svc.id] })).status).toBe(404);
  });
});

describe('environments', () => {
  it('archive with their services (which stay as they are), give back the environment and its services, and come back with them', async () => {
    const { owner, token, projectId, envId } = await ownerWithEnv(api, 'Starter');
    const staging = await newEnv(api, token, projectId, 'staging');
    const [s1, s2, s3] = [
      await createService(api, token, projectId, staging),
      await createService(api, token, projectId, staging),
      await createService(api, token, projectId, staging),
    ];
    await createService(api, token, projectId, envId);
    // One of its services is archived on its own first: it is not counted twice.
    await archived(token, { services: [s3.id] });
    expect(await counters(projectId, staging)).toEqual({
      project: { env_count: 2, service_count: 3, project_user_count: 0 },
      env: 2,
    });

    clock.advance(1000);
    const res = await archived(token, { environments: [staging] });
    expect(res.items.environments).toEqual([{ id: staging, name: 'staging' }]);
    expect(await counters(projectId, staging)).toEqual({
      project: { env_count: 1, service_count: 1, project_user_count: 0 },
      env: 2,
    });
    const envs = await api.get(`/environments?project_id=${projectId}`, { token });
    expect(envs.body.map((e: { id: string }) => e.id)).toEqual([envId]);
    const since = encodeURIComponent(new Date(clock.now().getTime() - 500).toISOString());
    expect(
      (await api.get(`/environments?project_id=${projectId}&updated_since=${since}`, { token })).body.map(
        (e: { id: string }) => e.id,
      ),
    ).toEqual([staging]);
    // Its services are out of reach with it; its name stays taken (it comes back under it).
    expect((await api.get(`/services?project_id=${projectId}&environment_id=${staging}`, { token })).status).toBe(400);
    expect((await api.get(`/services/${s1.id}`, { token })).status).toBe(404);
    expect((await archive(token, { services: [s1.id] })).body).toEqual({ detail: NOT_FOUND.services });
    expect((await api.patch(`/environments/${staging}`, { name: 'x' }, { token })).status).toBe(404);
    expect((await api.delete(`/environments/${staging}`, undefined, { token })).status).toBe(404);
    expect((await api.post('/environments', { project_id: projectId, name: 'staging' }, { token })).status).toBe(400);
    expect(await summary(token)).toEqual({ ...ZERO, services: 1, environments: 1 });
    const listed = await api.get('/me/archived/environments', { token });
    expect(listed.body).toEqual([
      {
        id: staging,
        name: 'staging',
        project_id: projectId,
        updated_at: clock.now().toISOString(),
        deleted_at: null,
        archived_at: clock.now().toISOString(),
      },
    ]);
    // Its archived service is still listed (it comes back once the environment does), and cannot come back alone.
    expect((await api.get('/me/archived/services', { token })).body.map((s: { id: string }) => s.id)).toEqual([s3.id]);
    const alone = await restore(token, { services: [s3.id] });
    expect(alone.status).toBe(409);
    expect(alone.body).toEqual({ detail: RESTORE_ENV_FIRST });

    await restored(token, { environments: [staging] });
    expect(await counters(projectId, staging)).toEqual({
      project: { env_count: 2, service_count: 3, project_user_count: 0 },
      env: 2,
    });
    expect((await servicesOf(token, projectId, staging)).sort()).toEqual([s1.id, s2.id].sort());
    await restored(token, { services: [s3.id] });
    expect((await servicesOf(token, projectId, staging)).sort()).toEqual([s1.id, s2.id, s3.id].sort());
    expect(await counters(projectId, staging)).toEqual({
      project: { env_count: 2, service_count: 4, project_user_count: 0 },
      env: 3,
    });
    expect(await summary(token)).toEqual(ZERO);
    expect(owner.id).toBeTruthy();
  });

  it('an environment and services in it, archived and restored in one request each', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Starter');
    const staging = await newEnv(api, token, projectId);
    const [s1, s2] = [
      await createService(api, token, projectId, staging),
      await createService(api, token, projectId, staging),
    ];
    const floor = await createFloor(api, token, projectId, staging);
    await createService(api, token, projectId, envId);
    const res = await archived(token, { environments: [staging], services: [s1.id], service_floors: [floor.id] });
    expect(res.counts).toEqual({ ...ZERO, environments: 1, services: 1, service_floors: 1 });
    expect(await counters(projectId, staging)).toEqual({
      project: { env_count: 1, service_count: 1, project_user_count: 0 },
      env: 1,
    });
    expect(await summary(token)).toEqual({ ...ZERO, environments: 1, services: 1, service_floors: 1 });
    // The floor, like the service, waits for its environment.
    expect((await restore(token, { service_floors: [floor.id] })).body).toEqual({ detail: RESTORE_ENV_FIRST });
    const back = await restored(token, { services: [s1.id], service_floors: [floor.id], environments: [staging] });
    expect(back.counts).toEqual({ ...ZERO, environments: 1, services: 1, service_floors: 1 });
    expect(back.refused).toEqual([]);
    expect((await servicesOf(token, projectId, staging)).sort()).toEqual([s1.id, s2.id].sort());
    expect(await counters(projectId, staging)).toEqual({
      project: { env_count: 2, service_count: 3, project_user_count: 0 },
      env: 2,
    });
  });

  it('restoring an environment is refused over the environment limit, and over the service limit for the services it brings back', async () => {
    const { owner, token, projectId, envId } = await ownerWithEnv(api, 'Free');
    for (let i = 0; i < 3; i++) await createService(api, token, projectId, envId);
    await archived(token, { environments: [envId] });
    // Free: one environment. A new one takes the slot.
    const second = await newEnv(api, token, projectId);
    const overEnvs = await restore(token, { environments: [envId] });
    expect(overEnvs.status).toBe(403);
    expect(overEnvs.body).toEqual({
      detail:
        "Environment limit reached for your 'Free' plan (max 1 per project). Please upgrade to create more environments.",
    });
    expect(await summary(token)).toEqual({ ...ZERO, environments: 1 });
    // Starter: three environments, 25 services; 23 live services elsewhere leave room for 2 of its 3.
    await setPlan(owner.id, 'Starter');
    for (let i = 0; i < 23; i++) await createService(api, token, projectId, second);
    const overServices = await restore(token, { environments: [envId] });
    expect(overServices.status).toBe(403);
    expect(overServices.body).toEqual({ detail: serviceLimit('Starter', 25) });
    expect(await counters(projectId, envId)).toEqual({
      project: { env_count: 1, service_count: 23, project_user_count: 0 },
      env: 3,
    });
    const [one] = await servicesOf(token, projectId, second);
    expect((await api.delete(`/services/${one}`, undefined, { token })).status).toBe(204);
    await restored(token, { environments: [envId] });
    expect(await counters(projectId, envId)).toEqual({
      project: { env_count: 2, service_count: 25, project_user_count: 0 },
      env: 3,
    });
    expect(await servicesOf(token, projectId, envId)).toHaveLength(3);
  });
});

describe('project users, API keys and service floors', () => {
  it('project users: out of the list, slot given back, restored within the limit', async () => {
    const { token, projectId } = await ownerWithEnv(api, 'Free');
    const person = await newProjectUser(token, projectId, 'Ada');
    clock.advance(1000);
    await archived(token, { project_users: [person.id] });
    expect((await api.get(`/project-users?project_id=${projectId}`, { token })).body).toEqual([]);
    expect((await api.get(`/project-users/${person.id}`, { token })).status).toBe(404);
    expect((await api.patch(`/project-users/${person.id}`, { name: 'x' }, { token })).status).toBe(404);
    const since = encodeURIComponent(clock.now().toISOString());
    expect(
      (await api.get(`/project-users?project_id=${projectId}&updated_since=${since}`, { token })).body.map(
        (p: { id: string }) => p.id,
      ),
    ).toEqual([person.id]);
    expect(await counters(projectId)).toMatchObject({ project: { project_user_count: 0 } });
    const listed = await api.get('/me/archived/project-users', { token });
    expect(listed.body).toEqual([
      { ...person, updated_at: clock.now().toISOString(), archived_at: clock.now().toISOString() },
    ]);
    // Free allows one project user: a new one takes the slot, and the restore is refused.
    const other = await newProjectUser(token, projectId);
    const refused = await restore(token, { project_users: [person.id] });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      detail: "Project user limit reached for your 'Free' plan (max 1). Please upgrade to add more project users.",
    });
    expect(await summary(token)).toEqual({ ...ZERO, project_users: 1 });
    expect((await api.delete(`/project-users/${other.id}`, undefined, { token })).status).toBe(204);
    await restored(token, { project_users: [person.id] });
    expect(
      (await api.get(`/project-users?project_id=${projectId}`, { token })).body.map((p: { id: string }) => p.id),
    ).toEqual([person.id]);
    expect(await counters(projectId)).toMatchObject({ project: { project_user_count: 1 } });
  });

  it('API keys of both sets: out of their lists, not revocable, slot given back, restored within the limit', async () => {
    const user = await signUp(api);
    await setPlan(user.id, 'Starter');
    const apiKey = await newApiKey(user.token, '/me/api-keys', 'deploy');
    const metricsKey = await newApiKey(user.token, '/me/metrics-api-keys', 'grafana');
    clock.advance(1000);
    await archived(user.token, { api_keys: [apiKey.id, metricsKey.id] });
    expect((await api.get('/me/api-keys', { token: user.token })).body).toEqual([]);
    expect((await api.get('/me/metrics-api-keys', { token: user.token })).body).toEqual([]);
    expect((await api.delete(`/me/api-keys/${apiKey.id}`, undefined, { token: user.token })).status).toBe(404);
    expect((await readItem(keys.account(user.id)))!.api_key_count).toBe(0);
    const listed = await api.get('/me/archived/api-keys', { token: user.token });
    const { key: _value, ...record } = apiKey as typeof apiKey & { key: string };
    expect(listed.body.map((k: { id: string }) => k.id).sort()).toEqual([apiKey.id, metricsKey.id].sort());
    expect(listed.body.find((k: { id: string }) => k.id === apiKey.id)).toEqual({
      ...record,
      archived_at: clock.now().toISOString(),
    });
    // Starter allows 5: fill them, and the restore is refused with the key limit.
    for (let i = 0; i < 5; i++) await newApiKey(user.token);
    const refused = await restore(user.token, { api_keys: [apiKey.id] });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      detail: "API key limit reached for your 'Starter' plan (max 5). Please upgrade to create more API keys.",
    });
    await setPlan(user.id, 'Team');
    clock.advance(1000);
    await restored(user.token, { api_keys: [apiKey.id, metricsKey.id] });
    expect(
      (await api.get('/me/metrics-api-keys', { token: user.token })).body.map((k: { id: string }) => k.id),
    ).toEqual([metricsKey.id]);
    expect((await readItem(keys.account(user.id)))!.api_key_count).toBe(7);
    expect(await summary(user.token)).toEqual(ZERO);
    // The account's own audit log: archive and restore of each key by the caller; the refused restore left nothing.
    for (const k of [apiKey, metricsKey]) {
      const log = await api.get(`/me/audit-log?entity_id=${k.id}`, { token: user.token });
      expect(log.status, log.text).toBe(200);
      expect(log.body.map((e: { action: string }) => e.action)).toEqual([
        'api_key.restore',
        'api_key.archive',
        'api_key.create',
      ]);
      expect(log.body[1]).toMatchObject({
        project_id: null,
        account_id: user.id,
        actor: { type: 'account', id: user.id },
        before: { archived_at: null },
        after: { archived_at: expect.any(String) },
      });
      expect(log.body[0]).toMatchObject({
        before: { archived_at: log.body[1].after.archived_at },
        after: { archived_at: null },
      });
      expect(JSON.stringify(log.body)).not.toContain((k as { key?: string }).key ?? 'no key in the answer');
    }
    expect((await api.get(`/me/audit-log?entity_id=${metricsKey.id}`, { token: user.token })).body[1].summary).toEqual({
      key_set: 'metrics',
      name: 'grafana',
    });
  });

  it('deleting a floor detaches its archived services too: they come back without it', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Starter');
    const floor = await createFloor(api, token, projectId, envId);
    const [hosted, archivedOne] = [
      await createService(api, token, projectId, envId, { service_floor_id: floor.id }),
      await createService(api, token, projectId, envId, { service_floor_id: floor.id }),
    ];
    await archived(token, { services: [archivedOne.id] });
    const del = await api.delete(`/service-floors/${floor.id}`, undefined, { token });
    expect(del.status, del.text).toBe(204);
    expect((await api.get(`/services/${hosted.id}`, { token })).body).toMatchObject({
      service_floor_id: null,
      type: 'serverless',
    });
    expect((await readItem(keys.service(projectId, envId, archivedOne.id)))!.archived_at).toBeTruthy();
    await restored(token, { services: [archivedOne.id] });
    expect((await api.get(`/services/${archivedOne.id}`, { token })).body).toMatchObject({
      service_floor_id: null,
      type: 'serverless',
    });
  });

  it('restoring an API key needs what creating one needs: the plan features first', async () => {
    const user = await signUp(api);
    await setPlan(user.id, 'Starter');
    const key = await newApiKey(user.token, '/me/metrics-api-keys');
    await archived(user.token, { api_keys: [key.id] });
    // A (non-public) plan like Starter without crud_api.
    const starter = PLAN_CATALOGUE.find((p) => p.name === 'Starter')!;
    const plan: Plan = {
      ...starter,
      id: randomUUID(),
      name: 'No API',
      is_public: false,
      features: { ...starter.features, crud_api: false },
    };
    await ddb().send(
      new PutCommand({ TableName: config().TABLE_NAME, Item: { ...keys.plan(90, plan.id), type: 'plan', ...plan } }),
    );
    resetPlanCache();
    await setPlan(user.id, 'Free');
    const subs = await listSubscriptions(user.id);
    const active = subs.find((x) => x.status === 'active')!;
    await ddb().send(
      new PutCommand({
        TableName: config().TABLE_NAME,
        Item: { ...keys.subscription(user.id, active.id), type: 'subscription', ...active, plan_id: plan.id },
      }),
    );
    const res = await restore(user.token, { api_keys: [key.id] });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      detail: 'Your plan does not include metrics API keys (feature: crud_api). Please upgrade.',
    });
    expect(await summary(user.token)).toEqual({ ...ZERO, api_keys: 1 });
  });

  it('service floors: out of the list and of changes, restored (no limit)', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Free');
    const floor = await createFloor(api, token, projectId, envId, { hostname: 'db-1' });
    const svc = await createService(api, token, projectId, envId, { service_floor_id: floor.id });
    clock.advance(1000);
    const res = await archived(token, { service_floors: [floor.id] });
    expect(res.items.service_floors).toEqual([{ id: floor.id, name: 'db-1' }]);
    expect((await api.get(`/service-floors?project_id=${projectId}&environment_id=${envId}`, { token })).body).toEqual(
      [],
    );
    expect((await api.patch(`/service-floors/${floor.id}`, { hostname: 'x' }, { token })).status).toBe(404);
    expect((await api.delete(`/service-floors/${floor.id}`, undefined, { token })).status).toBe(404);
    const since = encodeURIComponent(clock.now().toISOString());
    expect(
      (
        await api.get(`/service-floors?project_id=${projectId}&environment_id=${envId}&updated_since=${since}`, {
          token,
        })
      ).body.map((f: { id: string }) => f.id),
    ).toEqual([floor.id]);
    // Its services keep pointing at it; while it is archived they show no floor type.
    expect((await api.get(`/services/${svc.id}`, { token })).body).toMatchObject({
      service_floor_id: floor.id,
      type: 'serverless',
    });
    expect((await api.get('/me/archived/service-floors', { token })).body).toEqual([
      { ...floor, updated_at: clock.now().toISOString(), archived_at: clock.now().toISOString() },
    ]);
    await restored(token, { service_floors: [floor.id] });
    expect(
      (await api.get(`/service-floors?project_id=${projectId}&environment_id=${envId}`, { token })).body.map(
        (f: { id: string }) => f.id,
      ),
    ).toEqual([floor.id]);
    expect((await api.get(`/services/${svc.id}`, { token })).body.type).toBe('vm');
  });
});

describe('restoring services within the limit', () => {
  it('refuses a restore over the service limit with the usual 403 and restores nothing of the selection', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Free');
    const services = [];
    for (let i = 0; i < 5; i++) services.push(await createService(api, token, projectId, envId));
    await archived(token, { services: [services[0].id, services[1].id] });
    await createService(api, token, projectId, envId);
    // One slot left, two asked for: all-or-nothing.
    const res = await restore(token, { services: [services[0].id, services[1].id] });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: serviceLimit('Free', 5) });
    expect(await summary(token)).toEqual({ ...ZERO, services: 2 });
    expect(await counters(projectId, envId)).toMatchObject({ project: { service_count: 4 }, env: 4 });
    await restored(token, { services: [services[1].id] });
    expect((await restore(token, { services: [services[0].id] })).body).toEqual({ detail: serviceLimit('Free', 5) });
    expect(await servicesOf(token, projectId, envId)).toHaveLength(5);
  });

  it('a selection larger than one transaction is written in order, resource by resource where a limit refuses', async () => {
    const { owner, token, projectId, envId } = await ownerWithEnv(api, 'Team');
    // The first through the API, the rest written as its create writes them (test/helpers/seed.ts), counters included.
    const ids: string[] = [(await createService(api, token, projectId, envId, { name: 's-00' })).id];
    const names = Array.from({ length: 59 }, (_, i) => ({ name: `s-${String(i + 1).padStart(2, '0')}` }));
    ids.push(...(await seedServices(owner, projectId, envId, names)).map((s) => s.id));
    const res = await archived(token, { services: ids });
    expect(res.counts.services).toBe(60);
    expect(res.items.services.map((s: { id: string }) => s.id)).toEqual(ids);
    expect(await counters(projectId, envId)).toMatchObject({ project: { service_count: 0 }, env: 0 });
    // Team allows 100: with 45 new ones live, 55 of the 60 fit.
    await seedServices(
      owner,
      projectId,
      envId,
      Array.from({ length: 45 }, (_, i) => ({ name: `new-${i}` })),
    );
    const back = await restored(token, { services: ids });
    expect(back.counts.services).toBe(55);
    expect(back.items.services.map((s: { id: string }) => s.id)).toEqual(ids.slice(0, 55));
    expect(back.refused).toEqual(
      ids.slice(55).map((id) => ({ kind: 'services', id, detail: serviceLimit('Team', 100) })),
    );
    expect(await counters(projectId, envId)).toMatchObject({ project: { service_count: 100 }, env: 100 });
    expect(await summary(token)).toEqual({ ...ZERO, services: 5 });
    const listed = await api.get(`/services?project_id=${projectId}&environment_id=${envId}&limit=1000`, { token });
    expect(listed.body).toHaveLength(100);
  });
});

describe('the enforcement entry point', () => {
  it('archiveSelection archives for an owner without a signed-in caller', async () => {
    const { owner, token, projectId, envId } = await ownerWithEnv(api, 'Starter');
    const svc = await createService(api, token, projectId, envId, { name: 'late' });
    const report = await archiveSelection(owner.id, { services: [svc.id] }, appContext({ clock }));
    expect(report).toEqual({
      services: [{ id: svc.id, name: 'late' }],
      environments: [],
      project_users: [],
      api_keys: [],
      service_floors: [],
    });
    expect(await servicesOf(token, projectId, envId)).toEqual([]);
    expect(await summary(token)).toEqual({ ...ZERO, services: 1 });
    const stranger = await signUp(api);
    await expect(archiveSelection(stranger.id, { services: [svc.id] }, appContext({ clock }))).rejects.toMatchObject({
      kind: 'not_found',
      detail: NOT_FOUND.services,
    });
  });
});

describe('races', () => {
  it('10 concurrent unarchive and create requests at the service limit never exceed it (6 rounds)', async () => {
    // Free: 5 services. Each round: 3 of the 5 live services are archived, then 3 restores (one each)
    // and 7 creates race for the 3 free slots.
    const { token, projectId, envId } = await ownerWithEnv(api, 'Free');
    for (let i = 0; i < 5; i++) await createService(api, token, projectId, envId);
    for (let round = 0; round < 6; round++) {
      const live = await servicesOf(token, projectId, envId);
      expect(live).toHaveLength(5);
      const chosen = live.slice(0, 3);
      await archived(token, { services: chosen });
      const results = await Promise.all([
        ...chosen.map((id) => restore(token, { services: [id] })),
        ...Array.from({ length: 7 }, (_, i) =>
          api.post('/services', { name: `r${round}-${i}`, project_id: projectId, environment_id: envId }, { token }),
        ),
      ]);
      const won = results.filter((r) => r.status === 200 || r.status === 201);
      expect(won, `round ${round}: ${results.map((r) => r.status).join(',')}`).toHaveLength(3);
      for (const r of results.filter((r) => r.status !== 200 && r.status !== 201)) {
        expect(r.status, r.text).toBe(403);
        expect(r.body).toEqual({ detail: serviceLimit('Free', 5) });
      }
      expect(await servicesOf(token, projectId, envId)).toHaveLength(5);
      expect(await counters(projectId, envId)).toMatchObject({ project: { service_count: 5 }, env: 5 });
    }
  });

  it('an archive racing a delete of the same service: one wins, the slot is given back once (8 rounds)', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Starter');
    const base = await createService(api, token, projectId, envId);
    for (let round = 0; round < 8; round++) {
      const svc = await createService(api, token, projectId, envId);
      const [a, d] = await Promise.all([
        archive(token, { services: [svc.id] }),
        api.delete(`/services/${svc.id}`, undefined, { token }),
      ]);
      expect(
        [a.status, d.status].filter((s) => s === 200 || s === 204),
        `${a.text} ${d.text}`,
      ).toHaveLength(1);
      for (const r of [a, d].filter((r) => r.status !== 200 && r.status !== 204)) expect(r.status, r.text).toBe(404);
      expect(await counters(projectId, envId)).toMatchObject({ project: { service_count: 1 }, env: 1 });
    }
    expect(await servicesOf(token, projectId, envId)).toEqual([base.id]);
  });

  it('an environment archived while services are created in it gives back exactly what it holds (8 rounds)', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Starter');
    for (let i = 0; i < 2; i++) await createService(api, token, projectId, envId);
    for (let round = 0; round < 8; round++) {
      const doomed = await newEnv(api, token, projectId);
      await createService(api, token, projectId, doomed);
      const [a, ...creates] = await Promise.all([
        archive(token, { environments: [doomed] }),
        ...Array.from({ length: 3 }, (_, i) =>
          api.post('/services', { name: `r${round}-${i}`, project_id: projectId, environment_id: doomed }, { token }),
        ),
      ]);
      expect(a.status, a.text).toBe(200);
      for (const c of creates) expect([201, 400], c.text).toContain(c.status);
      const held = (await readItem(keys.environment(projectId, doomed)))!.service_count as number;
      expect(held).toBe(1 + creates.filter((c) => c.status === 201).length);
      expect(await counters(projectId)).toMatchObject({ project: { env_count: 1, service_count: 2 } });
      // It comes back with every service it held, and goes again for the next round.
      await restored(token, { environments: [doomed] });
      expect(await servicesOf(token, projectId, doomed)).toHaveLength(held);
      expect(await counters(projectId)).toMatchObject({ project: { env_count: 2, service_count: 2 + held } });
      expect((await api.delete(`/environments/${doomed}`, undefined, { token })).status).toBe(204);
    }
  });

  it('concurrent restores of one archived environment and creates of environments never exceed the environment limit (5 rounds)', async () => {
    const { token, projectId } = await ownerWithEnv(api, 'Starter');
    // Starter: 3 environments. Two live, one archived each round; a restore and 4 creates race for the one slot.
    await newEnv(api, token, projectId);
    for (let round = 0; round < 5; round++) {
      const envs = (await api.get(`/environments?project_id=${projectId}`, { token })).body as { id: string }[];
      expect(envs).toHaveLength(2);
      const extra = await newEnv(api, token, projectId);
      await createService(api, token, projectId, extra);
      await archived(token, { environments: [extra] });
      const results = await Promise.all([
        restore(token, { environments: [extra] }),
        ...Array.from({ length: 4 }, (_, i) =>
          api.post('/environments', { project_id: projectId, name: `r${round}-${i}` }, { token }),
        ),
      ]);
      expect(
        results.filter((r) => r.status === 200 || r.status === 201),
        results.map((r) => r.status).join(','),
      ).toHaveLength(1);
      const after = (await api.get(`/environments?project_id=${projectId}`, { token })).body as { id: string }[];
      expect(after).toHaveLength(3);
      expect((await counters(projectId)).project.env_count).toBe(3);
      // Back to two live environments for the next round.
      const newest = after.find((e) => !envs.some((x) => x.id === e.id))!;
      expect((await api.delete(`/environments/${newest.id}`, undefined, { token })).status).toBe(204);
    }
  });
});
