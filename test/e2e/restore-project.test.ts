import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { admin } from '../helpers/admin.ts';
import { client } from '../helpers/http.ts';
import { createFloor, createNetwork, createService, ownerWithEnv } from '../helpers/catalog.ts';
import { projectWithEnv } from '../helpers/tenancy.ts';
import { copyTable } from '../helpers/table-copy.ts';
import { keys } from '#db/keys';
import { queryPartition } from '#db/query';

const ref = useTestStack();
const api = client(() => ref.stack.url);
const tableEnv = () => ({
  DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT,
  TABLE_NAME: ref.stack.config.TABLE_NAME,
  LOCAL_DATA_DIR: ref.stack.dataDir,
});

/** An environment with a group and subgroup, floors, a network, services, a connection, a hub and links. */
async function catalog(token: string, projectId: string, envId: string) {
  const scope = { project_id: projectId, environment_id: envId };
  const group = (await api.post('/groups', { name: 'backend', ...scope }, { token })).body;
  const sub = (await api.post('/subgroups', { name: 'payments', group_id: group.id, ...scope }, { token })).body;
  const floor = await createFloor(api, token, projectId, envId, { hostname: 'host-a' });
  await createFloor(api, token, projectId, envId, { hostname: 'host-b' });
  const net = await createNetwork(api, token, projectId, envId, { name: 'lan' });
  const services: { id: string }[] = [];
  for (let i = 0; i < 8; i++) {
    services.push(
      await createService(api, token, projectId, envId, {
        name: `svc-${i}`,
        ...(i % 3 === 0 ? { group_id: group.id, subgroup_id: sub.id } : {}),
        ...(i % 2 ? { service_floor_id: floor.id } : {}),
      }),
    );
  }
  expect(
    (await api.patch(`/attachments/service-floors/${floor.id}/networks`, { network_ids: [net.id] }, { token })).status,
  ).toBe(200);
  expect(
    (
      await api.post(
        '/service-links',
        { from_service_id: services[0].id, to_service_id: services[1].id, ...scope },
        { token },
      )
    ).status,
  ).toBe(201);
  expect(
    (
      await api.post(
        '/service-connections',
        { ...scope, a_type: 'service', a_id: services[1].id, b_type: 'floor', b_id: floor.id, direction: 'a_to_b' },
        { token },
      )
    ).status,
  ).toBe(201);
  const hub = {
    ...scope,
    group_kind: 'hub',
    items: [2, 3, 4].map((i) => ({ a_type: 'service', a_id: services[0].id, b_type: 'service', b_id: services[i].id })),
  };
  expect((await api.post('/service-connections/batch', hub, { token })).status).toBe(201);
  return { group, floor, services };
}

/** The project as its users read it: every list of the environment, a blast radius, its counts. */
async function view(token: string, projectId: string, envId: string, hubId: string) {
  const q = `project_id=${projectId}&environment_id=${envId}`;
  const get = async (path: string) => {
    const res = await api.get(path, { token });
    expect(res.status, `${path}: ${res.text}`).toBe(200);
    return res.body;
  };
  return {
    services: await get(`/services?${q}`),
    floors: await get(`/service-floors?${q}`),
    networks: await get(`/networks?${q}`),
    groups: await get(`/groups?${q}`),
    connections: await get(`/service-connections?${q}`),
    links: await get(`/service-links?${q}`),
    blast: await get(`/services/${hubId}/blast-radius`),
    stats: (await get('/projects/stats')).find((p: { project_id: string }) => p.project_id === projectId),
  };
}

const sorted = (items: Record<string, unknown>[]) =>
  [...items].sort((a, b) => `${a.PK}|${a.SK}`.localeCompare(`${b.PK}|${b.SK}`));

describe('npm run admin -- restore-project', { timeout: 300_000 }, () => {
  it('a dry run changes nothing; --apply makes the damaged project read as the restored copy, another project untouched, with an audit entry', async () => {
    const o = await ownerWithEnv(api, 'Team');
    const { group, floor, services } = await catalog(o.token, o.projectId, o.envId);
    const other = await projectWithEnv(api, o.token);
    await createService(api, o.token, other.projectId, other.envId, { name: 'other-0' });
    const before = await view(o.token, o.projectId, o.envId, services[0].id);
    expect(before.services).toHaveLength(8);
    expect(before.stats).toMatchObject({ services: 8, servers: 2, groups: 1 });

    // The point in time: the whole table restored into a new one.
    const restored = `${ref.stack.config.TABLE_NAME}-restored`;
    await copyTable(ref.stack.config.TABLE_NAME, restored);
    const restorePoint = new Date().toISOString();

    // The damage, as a bad import with --prune does it (deletes through the API) and a script gone wrong.
    for (const s of services.slice(0, 3))
      expect((await api.delete(`/services/${s.id}`, undefined, { token: o.token })).status).toBe(204);
    expect(
      (await api.patch(`/services/${services[5].id}`, { name: 'renamed-by-script' }, { token: o.token })).status,
    ).toBe(200);
    expect((await api.delete(`/service-floors/${floor.id}`, undefined, { token: o.token })).status).toBe(204);
    expect((await api.delete(`/groups/${group.id}`, undefined, { token: o.token })).status).toBe(204);
    await createService(api, o.token, o.projectId, o.envId, { name: 'made-after-the-restore-point' });
    // The other project goes on changing after the restore point: the restore must not undo it.
    await createService(api, o.token, other.projectId, other.envId, { name: 'other-after' });
    const otherItems = sorted(await queryPartition(keys.projectPK(other.projectId), ''));
    expect(otherItems.length).toBeGreaterThan(0);
    const damaged = await view(o.token, o.projectId, o.envId, services[3].id);
    expect(damaged.services.map((s: { name: string }) => s.name)).not.toEqual(
      before.services.map((s: { name: string }) => s.name),
    );
    expect(damaged.stats.services).toBe(6);

    const dry = await admin(['restore-project', '--from-table', restored, '--project', o.projectId], tableEnv());
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('Dry run (nothing is written; --apply writes)');
    expect(dry.stdout).toMatch(/^SERVICE \| [1-9]\d* \| [1-9]\d* \| \d+$/m);
    expect(await view(o.token, o.projectId, o.envId, services[3].id)).toEqual(damaged);

    const apply = await admin(
      [
        'restore-project',
        '--from-table',
        restored,
        '--project',
        o.projectId,
        '--restore-point',
        restorePoint,
        '--apply',
      ],
      tableEnv(),
    );
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toMatch(/^Restored in [\d.]+ s$/m);
    expect(apply.stdout).toContain('listings rebuilt: 0 written, 0 stale removed');
    expect(await view(o.token, o.projectId, o.envId, services[0].id)).toEqual(before);
    expect(sorted(await queryPartition(keys.projectPK(other.projectId), ''))).toEqual(otherItems);

    const log = await api.get(`/projects/${o.projectId}/audit-log?entity_id=${o.projectId}`, { token: o.token });
    expect(log.status, log.text).toBe(200);
    expect(log.body.find((e: { action: string }) => e.action === 'project.point_in_time_restore')).toMatchObject({
      entity_type: 'project',
      actor: { type: 'service' },
      summary: { restore_point: restorePoint, restored_from: restored },
    });

    // Run again: nothing left to write.
    const again = await admin(['restore-project', '--from-table', restored, '--project', o.projectId], tableEnv());
    expect(again.stdout).toContain('0 items to put, 0 to delete (to write)');
  });

  it('refuses a project the copy lacks (exit 1), and bad arguments (exit 2)', async () => {
    const o = await ownerWithEnv(api, 'Team');
    const restored = `${ref.stack.config.TABLE_NAME}-early`;
    await copyTable(ref.stack.config.TABLE_NAME, restored);
    const later = await projectWithEnv(api, o.token);
    const missing = await admin(
      ['restore-project', '--from-table', restored, '--project', later.projectId],
      tableEnv(),
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`Project ${later.projectId} is not in table ${restored}`);
    expect((await admin(['restore-project', '--project', o.projectId], tableEnv())).code).toBe(2);
    expect(
      (
        await admin(
          ['restore-project', '--from-table', ref.stack.config.TABLE_NAME, '--project', o.projectId],
          tableEnv(),
        )
      ).code,
    ).toBe(2);
    expect(
      (
        await admin(
          ['restore-project', '--from-table', restored, '--project', o.projectId, '--apply', '--dry-run'],
          tableEnv(),
        )
      ).code,
    ).toBe(2);
  });
});
