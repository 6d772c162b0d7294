import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { setPlan } from '../helpers/plans.ts';
import { grantRole, projectWithEnv } from '../helpers/tenancy.ts';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { keys } from '#db/keys';

const ref = useTestStack();
const api = client(() => ref.stack.url);

/** Servers are written straight into the table: the floors routes are another issue's work. */
async function putFloor(projectId: string, envId: string, spec: Record<string, unknown>) {
  const id = randomUUID();
  const now = new Date().toISOString();
  await ddb().send(
    new PutCommand({
      TableName: config().TABLE_NAME,
      Item: {
        ...keys.floor(projectId, envId, id),
        type: 'floor',
        id,
        project_id: projectId,
        environment_id: envId,
        floor_type: 'vm',
        created_at: now,
        updated_at: now,
        deleted_at: null,
        ...spec,
      },
    }),
  );
  return id;
}

const RATE_CARD = { cpu_cents_per_vcpu_month: 1500, memory_cents_per_gb_month: 400, storage_cents_per_gb_month: 10 };

describe('GET /projects/{project_id}/costs/estimate', () => {
  it('is refused on a plan without cost estimates, naming the missing feature', async () => {
    const owner = await signUp(api);
    const { projectId } = await projectWithEnv(api, owner.token);
    const res = await api.get(`/projects/${projectId}/costs/estimate`, { token: owner.token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      detail: 'Your plan does not include cost estimates (feature: cost_estimate). Please upgrade.',
    });
  });

  it('prices live servers with the rate card, per environment and in total (basic)', async () => {
    const owner = await signUp(api);
    await setPlan(owner.id, 'Starter');
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const staging = (
      await api.post('/environments', { name: 'staging', project_id: projectId }, { token: owner.token })
    ).body.id;
    // 2 × (2 vCPU, 4 GB, 50 GB) = 2 × (3000 + 1600 + 500) = 10200 cents
    await putFloor(projectId, envId, { hostname: 'web-1', cpu: 2, memory_mb: 4096, storage_gb: 50, instances: 2 });
    // no instance count: 1 × (1 vCPU, 0.5 GB, no storage) = 1500 + 200 = 1700 cents
    await putFloor(projectId, envId, { hostname: 'tiny', cpu: 1, memory_mb: 512 });
    // no specification at all: 0
    await putFloor(projectId, staging, { hostname: 'unknown' });
    await putFloor(projectId, staging, { hostname: 'deleted', cpu: 64, deleted_at: new Date().toISOString() });

    const res = await api.get(`/projects/${projectId}/costs/estimate`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      project_id: projectId,
      environment_id: null,
      currency: 'USD',
      period: 'month',
      level: 'basic',
      cost_calc_enabled: false,
      rate_card: RATE_CARD,
      totals: { servers: 3, instances: 4, cpu: 5, memory_mb: 8704, storage_gb: 100, monthly_cents: 11900 },
      environments: [
        {
          environment_id: envId,
          name: 'production',
          servers: 2,
          instances: 3,
          cpu: 5,
          memory_mb: 8704,
          storage_gb: 100,
          monthly_cents: 11900,
        },
        {
          environment_id: staging,
          name: 'staging',
          servers: 1,
          instances: 1,
          cpu: 0,
          memory_mb: 0,
          storage_gb: 0,
          monthly_cents: 0,
        },
      ],
    });

    const one = await api.get(`/projects/${projectId}/costs/estimate?environment_id=${staging}`, {
      token: owner.token,
    });
    expect(one.body).toMatchObject({ environment_id: staging, totals: { servers: 1, monthly_cents: 0 } });
    expect(one.body.environments.map((e: any) => e.environment_id)).toEqual([staging]);

    // Servers of a deleted environment leave the estimate with it.
    await api.delete(`/environments/${staging}`, undefined, { token: owner.token });
    expect(
      (await api.get(`/projects/${projectId}/costs/estimate`, { token: owner.token })).body.environments,
    ).toHaveLength(1);
  });

  it('adds one line per server on plans with advanced estimates', async () => {
    const owner = await signUp(api);
    await setPlan(owner.id, 'Business');
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const id = await putFloor(projectId, envId, {
      hostname: 'db-1',
      cpu: 8,
      memory_mb: 32768,
      storage_gb: 1000,
      instances: 3,
    });
    const res = await api.get(`/projects/${projectId}/costs/estimate?environment_id=${envId}`, { token: owner.token });
    // 3 × (12000 + 12800 + 10000) = 104400 cents
    expect(res.body.level).toBe('advanced');
    expect(res.body.servers).toEqual([
      {
        id,
        environment_id: envId,
        hostname: 'db-1',
        instances: 3,
        cpu: 8,
        memory_mb: 32768,
        storage_gb: 1000,
        monthly_cents: 104400,
      },
    ]);
    expect(res.body.totals.monthly_cents).toBe(104400);
  });

  it('is open to every member; refuses an environment outside the project; 404 outside', async () => {
    const owner = await signUp(api);
    await setPlan(owner.id, 'Team');
    const viewer = await signUp(api);
    const stranger = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const other = await projectWithEnv(api, owner.token);
    await grantRole(api, owner.token, envId, viewer.id, 'viewer');
    expect(
      (await api.get(`/projects/${projectId}/costs/estimate?environment_id=${envId}`, { token: viewer.token })).status,
    ).toBe(200);
    for (const e of [other.envId, randomUUID()]) {
      const res = await api.get(`/projects/${projectId}/costs/estimate?environment_id=${e}`, { token: owner.token });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: 'Environment not found or does not belong to project' });
    }
    const outside = await api.get(`/projects/${projectId}/costs/estimate`, { token: stranger.token });
    expect(outside.status).toBe(404);
    expect(outside.body).toEqual({ detail: 'Project not found' });
    expect(
      (await api.get(`/projects/${projectId}/costs/estimate?environment_id=nope`, { token: owner.token })).status,
    ).toBe(422);
  });
});
