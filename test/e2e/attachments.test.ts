import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { grantRole } from '../helpers/tenancy.ts';
import {
  createFloor,
  createNetwork,
  createService,
  expectSameNotFound,
  newEnv,
  ownerWithEnv,
} from '../helpers/catalog.ts';

const ref = useTestStack();
const api = client(() => ref.stack.url);

/** Both holders behave alike: the service and the floor variant of every rule. */
const HOLDERS = [
  {
    label: 'services',
    path: 'services',
    idField: 'service_id',
    notFound: 'Service not found',
    forbidden: 'Insufficient permissions to manage services in this environment',
    create: createService,
  },
  {
    label: 'service floors',
    path: 'service-floors',
    idField: 'service_floor_id',
    notFound: 'ServiceFloor not found',
    forbidden: 'Insufficient permissions to manage service floors in this environment',
    create: createFloor,
  },
] as const;

describe.each(HOLDERS)('/attachments/$path/{id}/networks', ({ path, idField, notFound, forbidden, create }) => {
  it('starts empty, answers full network objects, and replaces the whole set', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const holder = await create(api, token, projectId, envId);
    const [a, b, c] = [
      await createNetwork(api, token, projectId, envId, { name: 'b-net', cidr: '10.0.1.0/24' }),
      await createNetwork(api, token, projectId, envId, {
        name: 'a-net',
        cidr: '10.0.2.0/24',
        gateway: '10.0.2.1',
        vlan_id: 7,
      }),
      await createNetwork(api, token, projectId, envId, { name: 'c-net', cidr: '10.0.3.0/24' }),
    ];
    const url = `/attachments/${path}/${holder.id}/networks`;
    expect((await api.get(url, { token })).body).toEqual({ [idField]: holder.id, networks: [] });
    const set = await api.patch(url, { network_ids: [a.id, b.id, a.id] }, { token });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({ [idField]: holder.id, networks: [b, a] });
    expect((await api.get(url, { token })).body).toEqual(set.body);
    const replaced = await api.patch(url, { network_ids: [c.id] }, { token });
    expect(replaced.body.networks.map((n: { id: string }) => n.id)).toEqual([c.id]);
    expect((await api.get(url, { token })).body.networks).toEqual([c]);
    const emptied = await api.patch(url, { network_ids: [] }, { token });
    expect(emptied.body).toEqual({ [idField]: holder.id, networks: [] });
  });

  it('refuses more than 10 ids with 422 before any lookup', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const holder = await create(api, token, projectId, envId);
    const eleven = Array.from({ length: 11 }, () => randomUUID());
    for (const id of [holder.id, randomUUID()]) {
      const res = await api.patch(`/attachments/${path}/${id}/networks`, { network_ids: eleven }, { token });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', 'network_ids']);
    }
    expect(
      (await api.patch(`/attachments/${path}/${randomUUID()}/networks`, { network_ids: ['nope'] }, { token })).status,
    ).toBe(422);
    // Exactly ten is fine.
    const ten = [];
    for (let i = 0; i < 10; i++)
      ten.push((await createNetwork(api, token, projectId, envId, { cidr: `10.9.${i}.0/24` })).id);
    const ok = await api.patch(`/attachments/${path}/${holder.id}/networks`, { network_ids: ten }, { token });
    expect(ok.status).toBe(200);
    expect(ok.body.networks).toHaveLength(10);
  });

  it('answers absent and foreign ids with byte-identical 404s, then 403 for a viewer', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const holder = await create(api, token, projectId, envId);
    const net = await createNetwork(api, token, projectId, envId);
    const stranger = await ownerWithEnv(api);
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { network_ids: [net.id] }],
    ] as const) {
      const foreign = await api.call(method, `/attachments/${path}/${holder.id}/networks`, body, {
        token: stranger.token,
      });
      const missing = await api.call(method, `/attachments/${path}/${randomUUID()}/networks`, body, {
        token: stranger.token,
      });
      expectSameNotFound(foreign, missing, notFound);
    }
    // The network's id is not a holder id.
    expectSameNotFound(
      await api.get(`/attachments/${path}/${net.id}/networks`, { token }),
      await api.get(`/attachments/${path}/${randomUUID()}/networks`, { token }),
      notFound,
    );
    const viewer = await signUp(api);
    await grantRole(api, token, envId, viewer.id, 'viewer');
    expect((await api.get(`/attachments/${path}/${holder.id}/networks`, { token: viewer.token })).status).toBe(200);
    const refused = await api.patch(
      `/attachments/${path}/${holder.id}/networks`,
      { network_ids: [net.id] },
      { token: viewer.token },
    );
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: forbidden });
    const manager = await signUp(api);
    await grantRole(api, token, envId, manager.id, 'manager');
    expect(
      (
        await api.patch(
          `/attachments/${path}/${holder.id}/networks`,
          { network_ids: [net.id] },
          { token: manager.token },
        )
      ).status,
    ).toBe(200);
  });

  it('refuses networks of another environment, another project, or deleted ones with 400, changing nothing', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const otherEnv = await newEnv(api, token, projectId);
    const holder = await create(api, token, projectId, envId);
    const mine = await createNetwork(api, token, projectId, envId);
    const wrongEnv = await createNetwork(api, token, projectId, otherEnv);
    const other = await ownerWithEnv(api);
    const foreign = await createNetwork(api, other.token, other.projectId, other.envId);
    const deleted = await createNetwork(api, token, projectId, envId);
    expect((await api.delete(`/networks/${deleted.id}`, undefined, { token })).status).toBe(204);
    const url = `/attachments/${path}/${holder.id}/networks`;
    expect((await api.patch(url, { network_ids: [mine.id] }, { token })).status).toBe(200);
    for (const bad of [wrongEnv.id, foreign.id, deleted.id, randomUUID()]) {
      const res = await api.patch(url, { network_ids: [mine.id, bad] }, { token });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: `Network not found in this environment: ${bad}` });
    }
    expect((await api.get(url, { token })).body.networks.map((n: { id: string }) => n.id)).toEqual([mine.id]);
  });

  it('drops a deleted network from the attachments', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const holder = await create(api, token, projectId, envId);
    const [keep, drop] = [
      await createNetwork(api, token, projectId, envId, { name: 'keep' }),
      await createNetwork(api, token, projectId, envId, { name: 'drop' }),
    ];
    const url = `/attachments/${path}/${holder.id}/networks`;
    await api.patch(url, { network_ids: [keep.id, drop.id] }, { token });
    expect((await api.delete(`/networks/${drop.id}`, undefined, { token })).status).toBe(204);
    expect((await api.get(url, { token })).body.networks.map((n: { name: string }) => n.name)).toEqual(['keep']);
  });
});
