import { describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { setPlan } from '../helpers/plans.ts';
import { ddb } from '#shared/clients';
import { keys } from '#db/keys';
import { createService, ownerWithEnv, readItem } from '../helpers/catalog.ts';

const ref = useTestStack();
const api = client(() => ref.stack.url);

const limitMessage = (plan: string, max: number) =>
  `Service limit reached for your '${plan}' plan (max ${max} per project including add-ons). Please upgrade or archive services.`;

/** Sets attributes on an item directly (counters, the add-on quota): what billing flows would write. */
const setAttributes = (key: { PK: string; SK: string }, values: Record<string, number>) =>
  ddb().send(
    new UpdateCommand({
      TableName: ref.stack.config.TABLE_NAME,
      Key: key,
      UpdateExpression: `SET ${Object.keys(values)
        .map((k) => `${k} = :${k}`)
        .join(', ')}`,
      ExpressionAttributeValues: Object.fromEntries(Object.entries(values).map(([k, v]) => [`:${k}`, v])),
    }),
  );

describe('the service limit', () => {
  it('creates exactly 5 of 10 concurrent services on the Free plan (max 5)', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Free');
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        api.post('/services', { name: `race-${i}`, project_id: projectId, environment_id: envId }, { token }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    for (const r of results.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ detail: limitMessage('Free', 5) });
    }
    const listed = await api.get(`/services?project_id=${projectId}&environment_id=${envId}`, { token });
    expect(listed.body).toHaveLength(5);
    expect((await readItem(keys.project(projectId)))!.service_count).toBe(5);
    expect((await readItem(keys.environment(projectId, envId)))!.service_count).toBe(5);
  });

  it('gives a slot back when a service is deleted', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Free');
    const services = [];
    for (let i = 0; i < 5; i++) services.push(await createService(api, token, projectId, envId));
    const refused = await api.post(
      '/services',
      { name: 'sixth', project_id: projectId, environment_id: envId },
      { token },
    );
    expect(refused.status).toBe(403);
    expect((await api.delete(`/services/${services[0].id}`, undefined, { token })).status).toBe(204);
    expect(
      (await api.post('/services', { name: 'sixth', project_id: projectId, environment_id: envId }, { token })).status,
    ).toBe(201);
    expect(
      (await api.post('/services', { name: 'seventh', project_id: projectId, environment_id: envId }, { token }))
        .status,
    ).toBe(403);
  });

  it('raises the limit by the project quota add-on', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Free');
    await setAttributes(keys.project(projectId), { service_quota_addon: 2 });
    for (let i = 0; i < 7; i++) await createService(api, token, projectId, envId);
    const refused = await api.post(
      '/services',
      { name: 'eighth', project_id: projectId, environment_id: envId },
      { token },
    );
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: limitMessage('Free', 7) });
  });

  it('enforces the same number per environment and per project', async () => {
    const { owner, token, projectId, envId } = await ownerWithEnv(api, 'Free');
    // The environment is at the cap while the project counter says otherwise: still refused.
    await setAttributes(keys.environment(projectId, envId), { service_count: 5 });
    const byEnv = await api.post('/services', { name: 'x', project_id: projectId, environment_id: envId }, { token });
    expect(byEnv.status).toBe(403);
    expect(byEnv.body).toEqual({ detail: limitMessage('Free', 5) });
    // And the other way round.
    await setAttributes(keys.environment(projectId, envId), { service_count: 0 });
    await setAttributes(keys.project(projectId), { service_count: 5 });
    const byProject = await api.post(
      '/services',
      { name: 'x', project_id: projectId, environment_id: envId },
      { token },
    );
    expect(byProject.status).toBe(403);
    // The plan that governs is the owner's: a bigger plan lifts both.
    await setPlan(owner.id, 'Starter');
    expect(
      (await api.post('/services', { name: 'x', project_id: projectId, environment_id: envId }, { token })).status,
    ).toBe(201);
  });

  it('has no limit on Enterprise+', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Enterprise+');
    await setAttributes(keys.project(projectId), { service_count: 1_000_000 });
    await setAttributes(keys.environment(projectId, envId), { service_count: 1_000_000 });
    expect(
      (await api.post('/services', { name: 'x', project_id: projectId, environment_id: envId }, { token })).status,
    ).toBe(201);
  });
});
