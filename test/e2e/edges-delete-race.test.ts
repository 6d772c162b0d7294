import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { createFloor, createService, ownerWithEnv } from '../helpers/catalog.ts';

/**
 * No connection or link outlives an end. Connects and links to a service (or a
 * server) race its delete; whatever order they commit in, once the delete has answered 204 nothing
 * live names it. Each race runs ROUNDS times.
 */
const ref = useTestStack();
const api = client(() => ref.stack.url);
/**
 * Every round is the same race (PARALLEL writers against one delete); the delete starts 0–3 ms after the
 * writers (`round % 4`), so 12 rounds meet each start offset three times.
 */
const ROUNDS = 12;
const PARALLEL = 6;

type Edge = { id: string; a_id?: string; b_id?: string; from_service_id?: string; to_service_id?: string };
const names = (e: Edge, id: string) => [e.a_id, e.b_id, e.from_service_id, e.to_service_id].includes(id);

describe('edges racing the delete of an end', () => {
  const cases = [
    {
      end: 'service',
      path: '/services',
      edges: '/service-connections',
      body: (from: string, to: string) => ({
        a_type: 'service',
        a_id: from,
        b_type: 'service',
        b_id: to,
        direction: 'a_to_b',
      }),
    },
    {
      end: 'service',
      path: '/services',
      edges: '/service-links',
      body: (from: string, to: string) => ({ from_service_id: from, to_service_id: to }),
    },
    {
      end: 'server',
      path: '/service-floors',
      edges: '/service-connections',
      body: (from: string, to: string) => ({
        a_type: 'service',
        a_id: from,
        b_type: 'floor',
        b_id: to,
        direction: 'a_to_b',
      }),
    },
  ] as const;
  for (const c of cases) {
    it(`${PARALLEL} parallel ${c.edges} to a ${c.end} racing its delete leave nothing naming it (${ROUNDS} rounds)`, async () => {
      const { token, projectId, envId } = await ownerWithEnv(api, 'Enterprise');
      const others = [];
      for (let i = 0; i < PARALLEL; i++)
        others.push((await createService(api, token, projectId, envId, { name: `other-${i}` })).id as string);
      for (let round = 0; round < ROUNDS; round++) {
        const doomed =
          c.end === 'service'
            ? ((await createService(api, token, projectId, envId, { name: `doomed-${round}` })).id as string)
            : ((await createFloor(api, token, projectId, envId, { hostname: `doomed-${round}` })).id as string);
        const [del, ...made] = await Promise.all([
          // Started after some of the edges in some rounds, so it lands at different points of them.
          new Promise((r) => setTimeout(r, round % 4)).then(() =>
            api.delete(`${c.path}/${doomed}`, undefined, { token }),
          ),
          ...others.map((o) =>
            api.post(c.edges, { project_id: projectId, environment_id: envId, ...c.body(o, doomed) }, { token }),
          ),
        ]);
        expect(del.status, del.text).toBe(204);
        for (const m of made) expect([201, 404], m.text).toContain(m.status);
        const listed = await api.get(`${c.edges}?project_id=${projectId}&environment_id=${envId}`, { token });
        expect(listed.status, listed.text).toBe(200);
        const left = (listed.body as Edge[]).filter((e) => names(e, doomed));
        expect(
          left,
          `round ${round}: ${made.filter((m) => m.status === 201).length} edges made, then the delete answered 204`,
        ).toEqual([]);
      }
    }, 180_000);
  }

  it(`${PARALLEL} services moved onto a server racing its delete are all detached (${ROUNDS} rounds)`, async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Enterprise');
    const services = [];
    for (let i = 0; i < PARALLEL; i++)
      services.push((await createService(api, token, projectId, envId, { name: `hosted-${i}` })).id as string);
    for (let round = 0; round < ROUNDS; round++) {
      const floor = (await createFloor(api, token, projectId, envId, { hostname: `doomed-${round}` })).id as string;
      const [del, ...moved] = await Promise.all([
        new Promise((r) => setTimeout(r, round % 4)).then(() =>
          api.delete(`/service-floors/${floor}`, undefined, { token }),
        ),
        ...services.map((id) => api.patch(`/services/${id}`, { service_floor_id: floor }, { token })),
      ]);
      expect(del.status, del.text).toBe(204);
      for (const m of moved) expect([200, 400], m.text).toContain(m.status);
      for (const id of services) {
        const read = await api.get(`/services/${id}`, { token });
        expect(
          [read.body.service_floor_id, read.body.type],
          `round ${round}: service ${id} after the server's delete`,
        ).not.toContain(floor);
      }
    }
  }, 180_000);

  it(`joins to a chain and deletes of its members racing the chain's delete leave no member behind (${ROUNDS} rounds)`, async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Enterprise');
    const others = [];
    for (let i = 0; i < 6; i++)
      others.push((await createService(api, token, projectId, envId, { name: `member-${i}` })).id as string);
    const pair = (from: string, to: string) => ({
      a_type: 'service',
      a_id: from,
      b_type: 'service',
      b_id: to,
      direction: 'a_to_b',
    });
    for (let round = 0; round < ROUNDS; round++) {
      const hub = (await createService(api, token, projectId, envId, { name: `hub-${round}` })).id as string;
      const batch = await api.post(
        '/service-connections/batch',
        {
          project_id: projectId,
          environment_id: envId,
          group_kind: 'hub',
          items: others.slice(0, 3).map((o) => pair(o, hub)),
        },
        { token },
      );
      expect(batch.status, batch.text).toBe(201);
      const chainId = batch.body[0].chain_id as string;
      const [del, ...rest] = await Promise.all([
        new Promise((r) => setTimeout(r, round % 4)).then(() =>
          api.delete(`/service-connections/chains/${chainId}`, undefined, { token }),
        ),
        ...others
          .slice(3)
          .map((o) =>
            api.post(
              '/service-connections',
              { project_id: projectId, environment_id: envId, chain_id: chainId, ...pair(o, hub) },
              { token },
            ),
          ),
        ...batch.body
          .slice(0, 2)
          .map((c: { id: string }) => api.delete(`/service-connections/${c.id}`, undefined, { token })),
      ]);
      expect(del.status, del.text).toBe(204);
      for (const r of rest) expect([201, 204, 404], r.text).toContain(r.status);
      const listed = await api.get(`/service-connections?project_id=${projectId}&environment_id=${envId}`, { token });
      const left = (listed.body as { chain_id: string | null }[]).filter((c) => c.chain_id === chainId);
      expect(left, `round ${round}: members left after the chain's delete answered 204`).toEqual([]);
    }
  }, 180_000);

  it(`subgroups created and deleted racing their group's delete leave none under it (${ROUNDS} rounds)`, async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Enterprise');
    const scope = { project_id: projectId, environment_id: envId };
    for (let round = 0; round < ROUNDS; round++) {
      const group = await api.post('/groups', { ...scope, name: `g-${round}` }, { token });
      expect(group.status, group.text).toBe(201);
      const existing = [];
      for (let i = 0; i < 2; i++)
        existing.push(
          (await api.post('/subgroups', { ...scope, group_id: group.body.id, name: `old-${i}` }, { token })).body
            .id as string,
        );
      const [del, ...rest] = await Promise.all([
        new Promise((r) => setTimeout(r, round % 4)).then(() =>
          api.delete(`/groups/${group.body.id}`, undefined, { token }),
        ),
        ...Array.from({ length: 4 }, (_, i) =>
          api.post('/subgroups', { ...scope, group_id: group.body.id, name: `new-${i}` }, { token }),
        ),
        ...existing.map((id) => api.delete(`/subgroups/${id}`, undefined, { token })),
      ]);
      expect(del.status, del.text).toBe(204);
      for (const r of rest) expect([201, 204, 400, 404], r.text).toContain(r.status);
      const left = await api.get(
        `/subgroups?project_id=${projectId}&environment_id=${envId}&group_id=${group.body.id}`,
        { token },
      );
      expect(left.body, `round ${round}: subgroups left under a group whose delete answered 204`).toEqual([]);
    }
  }, 180_000);
});
