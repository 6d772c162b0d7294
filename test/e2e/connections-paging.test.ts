import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { keys } from '#db/keys';
import { ddb } from '#shared/clients';
import { queryPrefix } from '#db/query';
import { appContext } from '#shared/context';
import { applyImport, buildExportDocument, planImport } from '#domain/impex';
import { backfillListings, chainPlace } from '#domain/catalog';
import { deleteItem, putItem } from '#db/items';
import { countItemsRead } from '../bench/measure.ts';
import { createFloor, createService, ownerWithEnv } from '../helpers/catalog.ts';

/**
 * GET /service-connections reads listing items in creation order (the environment's
 * range, or one end's), with optional `offset` and `limit` beyond SPEC. The whole list must be the
 * one the former path answered (the environment's connections read whole, the live ones filtered
 * and sorted in memory: kept here as the reference), and every page that list sliced; and the table
 * must hold exactly three listings per live connection (four for a chain member), whatever wrote it.
 */

// Its backfill reads and counts the whole table: a stack of its own, not one shared with other files.
const ref = useTestStack({}, { ownStack: true });
const api = client(() => ref.stack.url);

type Conn = {
  id: string;
  a_id: string;
  b_id: string;
  chain_id: string | null;
  created_at: string;
  position?: number;
  deleted_at: string | null;
};

/** The former order (connections.ts `byConnectionOrder`, as it was). */
const byConnectionOrder = (a: Conn, b: Conn) =>
  a.created_at.localeCompare(b.created_at) || (a.position ?? 0) - (b.position ?? 0) || a.id.localeCompare(b.id);

/** The former GET /service-connections: a Query of the environment's connections, the live ones filtered and sorted in memory. */
async function reference(projectId: string, envId: string, f: { entity_id?: string; chain_id?: string }) {
  return (await queryPrefix<Conn>(projectId, keys.connectionPrefix(envId)))
    .filter((c) => !c.deleted_at)
    .filter((c) => !f.entity_id || c.a_id === f.entity_id || c.b_id === f.entity_id)
    .filter((c) => !f.chain_id || c.chain_id === f.chain_id)
    .sort(byConnectionOrder)
    .map((c) => c.id);
}

/** The listing items the table should hold: three per live connection (the environment's range and each end's), and its chain's for a member. */
async function expectListingsExact(projectId: string, envId: string) {
  const live = (await queryPrefix<Conn>(projectId, keys.connectionPrefix(envId))).filter((c) => !c.deleted_at);
  const listings = await queryPrefix<{ SK: string; id: string }>(projectId, keys.listingPrefix('CONN', envId));
  const perId = new Map<string, string[]>();
  for (const l of listings) perId.set(l.id, [...(perId.get(l.id) ?? []), l.SK.split('#')[2]]);
  expect(perId.size).toBe(live.length);
  for (const c of live)
    expect(perId.get(c.id)?.sort(), `listings of ${c.id}`).toEqual(
      ['ALL', c.a_id, c.b_id, ...(c.chain_id ? [chainPlace(c.chain_id)] : [])].sort(),
    );
}

const PAGES: [number, number][] = [
  [0, 1],
  [0, 10],
  [1, 10],
  [7, 50],
  [23, 24],
  [100, 1000],
  [150, 7],
  [290, 5],
  [299, 10],
  [400, 10],
];

/** Runs `size` at a time (connection creates take turns per environment: a few in parallel still tie on created_at). */
async function inBatches<T>(n: number, make: (i: number) => Promise<T>, size = 20): Promise<T[]> {
  const out: T[] = [];
  for (let batch = 0; batch < n; batch += size)
    out.push(...(await Promise.all(Array.from({ length: Math.min(size, n - batch) }, (_, j) => make(batch + j)))));
  return out;
}

describe('GET /service-connections pages from listing items', () => {
  it('answers every filter, whole and in pages, as the former in-memory path did, through edits, deletes, cascades, archives and an import', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Business');
    const scope = { project_id: projectId, environment_id: envId };
    const services = await inBatches(24, (i) =>
      createService(api, token, projectId, envId, { name: `svc-${String(i).padStart(2, '0')}` }),
    );
    const floors = await inBatches(12, (i) =>
      createFloor(api, token, projectId, envId, { hostname: `host-${String(i).padStart(2, '0')}` }),
    );
    const ends = [
      ...services.map((s) => ({ type: 'service', id: s.id })),
      ...floors.map((f) => ({ type: 'floor', id: f.id })),
    ];
    // Distinct unordered pairs (so no duplicates), in a scattered order.
    const pairs: [number, number][] = [];
    for (let a = 0; a < ends.length; a++) for (let b = a + 1; b < ends.length; b++) pairs.push([a, b]);
    pairs.sort((x, y) => ((x[0] * 31 + x[1] * 17) % 97) - ((y[0] * 31 + y[1] * 17) % 97) || x[0] - y[0] || x[1] - y[1]);
    const spec = ([a, b]: [number, number], i: number) => ({
      a_type: ends[a].type,
      a_id: ends[a].id,
      b_type: ends[b].type,
      b_id: ends[b].id,
      direction: ['none', 'a_to_b', 'b_to_a', 'both'][i % 4],
      ...(i % 3 ? { name: `c${i}` } : {}),
    });

    // 300 connections: batches (chains and hubs, one of 24: its listings commit beside its transaction), singles made
    // in parallel (equal created_at instants tie by id), and singles joining a chain.
    const hub = 0; // svc-00: many connections
    const hubPairs = pairs.filter(([a]) => a === hub).slice(0, 24);
    const rest = pairs.filter((p) => !hubPairs.includes(p));
    const bigHub = await api.post(
      '/service-connections/batch',
      { ...scope, group_kind: 'hub', items: hubPairs.map(spec) },
      { token },
    );
    expect(bigHub.status, bigHub.text).toBe(201);
    const chains: string[] = [bigHub.body[0].chain_id];
    let next = 0;
    for (const size of [5, 10, 3, 20, 8, 12]) {
      const batch = await api.post(
        '/service-connections/batch',
        { ...scope, group_kind: size % 2 ? 'chain' : 'hub', items: rest.slice(next, next + size).map(spec) },
        { token },
      );
      expect(batch.status, batch.text).toBe(201);
      chains.push(batch.body[0].chain_id);
      next += size;
    }
    const singles = await inBatches(
      300 - 24 - next - 10,
      (i) => api.post('/service-connections', { ...scope, ...spec(rest[next + i], i) }, { token }),
      4,
    );
    for (const s of singles) expect(s.status, s.text).toBe(201);
    next += singles.length;
    for (let i = 0; i < 10; i++) {
      const joined = await api.post(
        '/service-connections',
        { ...scope, ...spec(rest[next + i], i), chain_id: chains[1] },
        { token },
      );
      expect(joined.status, joined.text).toBe(201);
    }
    next += 10;
    expect((await reference(projectId, envId, {})).length).toBe(300);

    // Edits (direction, name, chain-wide), deletes (one, a whole chain), cascades (a service's and a floor's delete),
    // archive and restore (connections of an archived service stay listed), and an import adding connections and a chain.
    for (let i = 0; i < 300; i += 37)
      expect(
        (
          await api.patch(
            `/service-connections/${singles[i % singles.length].body.id}`,
            { direction: 'both', name: `renamed ${i}` },
            { token },
          )
        ).status,
      ).toBe(200);
    expect(
      (await api.patch(`/service-connections/chains/${chains[2]}`, { name: 'chain-wide' }, { token })).status,
    ).toBe(200);
    for (let i = 3; i < singles.length; i += 19)
      expect((await api.delete(`/service-connections/${singles[i].body.id}`, undefined, { token })).status).toBe(204);
    expect((await api.delete(`/service-connections/chains/${chains[3]}`, undefined, { token })).status).toBe(204);
    expect((await api.delete(`/services/${services[5].id}`, undefined, { token })).status).toBe(204);
    expect((await api.delete(`/service-floors/${floors[3].id}`, undefined, { token })).status).toBe(204);
    expect(
      (await api.post('/me/mark-archived', { services: [services[7].id, services[8].id] }, { token })).status,
    ).toBe(200);
    expect((await api.post('/me/unarchive', { services: [services[8].id] }, { token })).status).toBe(200);
    const ctx = appContext();
    const document = await buildExportDocument({
      projectId,
      environmentId: envId,
      recordId: 'rec-conn-paging',
      exportedAt: new Date().toISOString(),
    });
    const named = (i: number) =>
      ends[i].type === 'service'
        ? { service: services[i].name }
        : { service_floor: floors[i - services.length].hostname };
    const fresh = rest.slice(next).filter(([a, b]) => ![5, 7, 24 + 3].includes(a) && ![5, 7, 24 + 3].includes(b));
    document.spec.connections.push(
      ...fresh
        .slice(0, 6)
        .map(([a, b]) => ({ a: named(a), b: named(b), direction: 'both' as const, name: 'imported' })),
    );
    document.spec.connection_groups.push({
      group_kind: 'chain',
      connections: fresh.slice(6, 36).map(([a, b]) => ({ a: named(a), b: named(b), direction: 'a_to_b' as const })),
    });
    const plan = await planImport({ projectId, environmentId: envId, document }, ctx);
    expect(plan.report.errors).toEqual([]);
    expect((await applyImport(plan, ctx)).errors).toEqual([]);
    const imported = (await api.get(`/service-connections?${new URLSearchParams(scope)}`, { token })).body.at(-1)
      .chain_id as string;

    await expectListingsExact(projectId, envId);
    const filters: { entity_id?: string; chain_id?: string }[] = [
      {},
      { entity_id: services[hub].id },
      { entity_id: services[1].id },
      { entity_id: services[7].id },
      { entity_id: services[5].id },
      { entity_id: floors[0].id },
      { entity_id: floors[3].id },
      { chain_id: chains[0] },
      { chain_id: chains[1] },
      { chain_id: chains[3] },
      { chain_id: imported },
      { entity_id: services[hub].id, chain_id: chains[0] },
      { entity_id: services[2].id, chain_id: chains[1] },
    ];
    for (const f of filters) {
      const base = `/service-connections?${new URLSearchParams({ ...scope, ...f })}`;
      const whole = await api.get(base, { token });
      expect(whole.status, whole.text).toBe(200);
      expect(
        whole.body.map((c: Conn) => c.id),
        base,
      ).toEqual(await reference(projectId, envId, f));
      for (const [offset, limit] of PAGES) {
        const res = await api.get(`${base}&offset=${offset}&limit=${limit}`, { token });
        expect(res.status, res.text).toBe(200);
        expect(res.body, `${base} offset=${offset} limit=${limit}`).toEqual(whole.body.slice(offset, offset + limit));
      }
    }
    // The filters above are meaningful: a long whole list, a busy entity, a chain grown by singles, emptied ones.
    expect((await reference(projectId, envId, {})).length).toBeGreaterThan(280);
    expect((await reference(projectId, envId, { entity_id: services[hub].id })).length).toBeGreaterThanOrEqual(20);
    expect(await reference(projectId, envId, { entity_id: services[5].id })).toEqual([]);
    expect(await reference(projectId, envId, { chain_id: chains[3] })).toEqual([]);
  }, 900_000);

  it('reads only the entity’s connections for entity_id, offset + limit for a page; skips a listing of no live connection; refuses a limit out of range', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Business');
    const scope = { project_id: projectId, environment_id: envId };
    const services = await inBatches(40, (i) => createService(api, token, projectId, envId, { name: `r-${i}` }));
    const [busy, quiet] = [services[0], services[1]];
    // 39 connections of the busy service, 1 of the quiet one, 38 others.
    for (let i = 1; i < 40; i += 13) {
      const items = services
        .slice(i, i + 13)
        .map((s) => ({ a_type: 'service', a_id: busy.id, b_type: 'service', b_id: s.id }));
      expect(
        (await api.post('/service-connections/batch', { ...scope, group_kind: 'hub', items }, { token })).status,
      ).toBe(201);
    }
    for (let i = 2; i < 40; i++)
      expect(
        (
          await api.post(
            '/service-connections',
            {
              ...scope,
              a_type: 'service',
              a_id: services[i].id,
              b_type: 'service',
              b_id: services[i === 39 ? 1 : i + 1].id,
            },
            { token },
          )
        ).status,
      ).toBe(201);
    const read = countItemsRead(ddb());
    const listed = async (q: Record<string, string>) => {
      read.reset();
      const res = await api.get(`/service-connections?${new URLSearchParams({ ...scope, ...q })}`, { token });
      expect(res.status, res.text).toBe(200);
      return { ids: res.body.map((c: Conn) => c.id) as string[], read: read.byCommand() };
    };
    const quietOnes = await listed({ entity_id: quiet.id });
    expect(quietOnes.ids).toHaveLength(2);
    expect(quietOnes.read.QueryCommand).toBe(2); // its two listings, nothing of the other 75 connections
    const all = await listed({});
    expect(all.ids).toHaveLength(77);
    const page = await listed({ offset: '10', limit: '5' });
    expect(page.ids).toEqual(all.ids.slice(10, 15));
    expect(page.read.QueryCommand).toBe(15);
    // A listing left by an interrupted write (no connection behind it) is skipped, and the page is still full.
    const ghost = '00000000-0000-4000-8000-000000000000';
    const ghostKey = keys.listing('CONN', projectId, envId, '2000-01-01T00:00:00.000Z#0000000000', ghost, 'ALL');
    await putItem({ ...ghostKey, id: ghost, chain_id: null });
    expect((await listed({ limit: '5' })).ids).toEqual(all.ids.slice(0, 5));
    expect((await listed({})).ids).toEqual(all.ids);
    await deleteItem(ghostKey);
    for (const bad of ['&limit=0', '&limit=1001', '&offset=-1'])
      expect((await api.get(`/service-connections?${new URLSearchParams(scope)}${bad}`, { token })).status).toBe(422);
  }, 300_000);

  it('a backfill writes the listings of connections a table misses and removes stale ones', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Business');
    const scope = { project_id: projectId, environment_id: envId };
    const [a, b, c] = await inBatches(3, (i) => createService(api, token, projectId, envId, { name: `bf-${i}` }));
    const made: string[] = [];
    for (const [x, y] of [
      [a, b],
      [b, c],
      [a, c],
    ])
      made.push(
        (
          await api.post(
            '/service-connections',
            { ...scope, a_type: 'service', a_id: x.id, b_type: 'service', b_id: y.id },
            { token },
          )
        ).body.id,
      );
    const listed = async (q: Record<string, string> = {}) =>
      (await api.get(`/service-connections?${new URLSearchParams({ ...scope, ...q })}`, { token })).body.map(
        (x: Conn) => x.id,
      );
    // A table from before: one connection without its listings, a stale listing; the connections' backfill not run.
    for (const l of (
      await queryPrefix<{ PK: string; SK: string; id: string }>(projectId, keys.listingPrefix('CONN', envId))
    ).filter((x) => x.id === made[1]))
      await deleteItem({ PK: l.PK, SK: l.SK });
    const stale = keys.listing(
      'CONN',
      projectId,
      envId,
      '2000-01-01T00:00:00.000Z#0000000000',
      '00000000-0000-4000-8000-000000000000',
      a.id,
    );
    await putItem({ ...stale, id: '00000000-0000-4000-8000-000000000000', chain_id: null });
    await deleteItem(keys.migration('conn-listing'));
    expect(await listed()).toEqual([made[0], made[2]]);
    const done = await backfillListings();
    expect(done.CONN).toEqual({ written: 3, removed: 1 });
    expect(done.FLOOR).toBeUndefined();
    expect(await listed()).toEqual(made);
    expect(await listed({ entity_id: c.id })).toEqual([made[1], made[2]]);
    await expectListingsExact(projectId, envId);
    expect(await backfillListings()).toEqual({});
  });
});
