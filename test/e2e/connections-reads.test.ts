import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { ddb } from '#shared/clients';
import { keys } from '#db/keys';
import { queryPrefix } from '#db/query';
import { deleteItem, putItem } from '#db/items';
import { backfillListings, chainPlace, END_PROBE } from '#domain/catalog';
import { countItemsRead } from '../bench/measure.ts';
import { createFloor, createService, newEnv, ownerWithEnv, readItem } from '../helpers/catalog.ts';

/**
 * The writes that remove or check connections read those of the entities they touch (their
 * per-end listings) and a chain's members (its own listing range), never every connection of the
 * environment. Each write runs in two environments alike but for 60 connections among other
 * services in one: the items it reads must not grow with them.
 */

// Its backfill reads and counts the whole table: a stack of its own, not one shared with other files.
const ref = useTestStack({}, { ownStack: true });
const api = client(() => ref.stack.url);

const UNRELATED = 60;
const DUPLICATE = { detail: 'A connection between these two entities in this direction already exists' };
const svc = (a: string, b: string, extra: Record<string, unknown> = {}) => ({
  a_type: 'service',
  a_id: a,
  b_type: 'service',
  b_id: b,
  ...extra,
});

/** One environment: the subjects of the writes below, and 12 other services joined by `unrelated` connections. */
async function environment(token: string, projectId: string, envId: string, unrelated: number) {
  const scope = { project_id: projectId, environment_id: envId };
  const service = async (name: string) => (await createService(api, token, projectId, envId, { name })).id as string;
  const [x, y, z, p, q, k1, k2, k3] = await Promise.all(['x', 'y', 'z', 'p', 'q', 'k1', 'k2', 'k3'].map(service));
  const others = await Promise.all(Array.from({ length: 12 }, (_, i) => service(`other-${i}`)));
  const floor = (await createFloor(api, token, projectId, envId, { hostname: 'vm-f' })).id as string;
  const post = async (path: string, body: Record<string, unknown>) => {
    const res = await api.post(path, { ...scope, ...body }, { token });
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  // The other services' connections: distinct pairs, in batches of 24.
  const pairs: [string, string][] = [];
  for (let a = 0; a < others.length; a++)
    for (let b = a + 1; b < others.length; b++) pairs.push([others[a], others[b]]);
  for (let i = 0; i < unrelated; i += 24) {
    await post('/service-connections/batch', {
      group_kind: 'hub',
      items: pairs.slice(i, Math.min(i + 24, unrelated)).map(([a, b]) => svc(a, b)),
    });
  }
  // x: two connections (one alone, one in a chain with y–z); the floor: two; the chain k1–k2–k3.
  await post('/service-connections', svc(x, y, { direction: 'a_to_b' }));
  const xChain = await post('/service-connections/batch', { group_kind: 'chain', items: [svc(x, z), svc(y, z)] });
  await post('/service-connections', { a_type: 'floor', a_id: floor, b_type: 'service', b_id: y });
  await post('/service-connections', { a_type: 'floor', a_id: floor, b_type: 'service', b_id: z });
  const chain = (
    await post('/service-connections/batch', { group_kind: 'chain', items: [svc(k1, k2), svc(k2, k3)] })
  )[0].chain_id as string;
  const list = async (query: Record<string, string> = {}) => {
    const res = await api.get(`/service-connections?${new URLSearchParams({ ...scope, ...query })}`, { token });
    expect(res.status, res.text).toBe(200);
    return res.body as { id: string; a_id: string; b_id: string; direction: string; chain_id: string | null }[];
  };
  return { scope, x, y, z, p, q, floor, chain, xChain: xChain[0].chain_id as string, list };
}

type Env = Awaited<ReturnType<typeof environment>>;

describe('connection writes read only the connections they touch', () => {
  it('deleting a service or a floor, creating or re-directing a connection, and a chain’s patch and delete read the same items beside 60 other connections', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Business');
    const quiet = await environment(token, projectId, envId, 0);
    const crowded = await environment(token, projectId, await newEnv(api, token, projectId), UNRELATED);
    expect(await crowded.list()).toHaveLength(UNRELATED + 7);
    const read = countItemsRead(ddb());

    /** Runs one write in each environment (the quiet one first), returns the items each read. */
    const figures: Record<string, { quiet: number; crowded: number }> = {};
    const both = async (label: string, write: (e: Env) => Promise<void>) => {
      const counted = async (e: Env) => {
        read.reset();
        await write(e);
        return read.total();
      };
      figures[label] = { quiet: await counted(quiet), crowded: await counted(crowded) };
    };

    let made: Record<string, string> = {};
    await both('POST /service-connections', async (e) => {
      const res = await api.post(
        '/service-connections',
        { ...e.scope, ...svc(e.p, e.q, { direction: 'a_to_b' }) },
        { token },
      );
      expect(res.status, res.text).toBe(201);
      made = { ...made, [e.scope.environment_id]: res.body.id };
    });
    await both('POST /service-connections (duplicate, 400)', async (e) => {
      const res = await api.post(
        '/service-connections',
        { ...e.scope, ...svc(e.q, e.p, { direction: 'b_to_a' }) },
        { token },
      );
      expect(res.status).toBe(400);
      expect(res.body).toEqual(DUPLICATE);
    });
    await both('PATCH /service-connections/{id} direction', async (e) => {
      const res = await api.patch(
        `/service-connections/${made[e.scope.environment_id]}`,
        { direction: 'both' },
        { token },
      );
      expect(res.status, res.text).toBe(200);
    });
    await both('PATCH /service-connections/chains/{id} direction', async (e) => {
      const res = await api.patch(
        `/service-connections/chains/${e.chain}`,
        { direction: 'b_to_a', name: 'k' },
        { token },
      );
      expect(res.status, res.text).toBe(200);
      expect(res.body.map((c: { direction: string; name: string }) => [c.direction, c.name])).toEqual([
        ['b_to_a', 'k'],
        ['b_to_a', 'k'],
      ]);
    });
    await both('DELETE /service-connections/chains/{id}', async (e) => {
      expect((await api.delete(`/service-connections/chains/${e.chain}`, undefined, { token })).status).toBe(204);
    });
    await both('DELETE /services/{id} (2 connections)', async (e) => {
      expect((await api.delete(`/services/${e.x}`, undefined, { token })).status).toBe(204);
    });
    await both('DELETE /service-floors/{id} (2 connections)', async (e) => {
      expect((await api.delete(`/service-floors/${e.floor}`, undefined, { token })).status).toBe(204);
    });
    console.log(
      `items read (quiet environment / with ${UNRELATED} other connections):\n${Object.entries(figures)
        .map(([k, v]) => `  ${k}: ${v.quiet} / ${v.crowded}`)
        .join('\n')}`,
    );
    for (const [label, { quiet: q, crowded: c }] of Object.entries(figures)) {
      expect(c, label).toBeLessThanOrEqual(q);
      expect(c, label).toBeLessThan(UNRELATED);
    }

    // What the writes did: in each environment the same connections are left, the other ones untouched.
    for (const e of [quiet, crowded]) {
      const left = await e.list();
      expect(left.filter((c) => [c.a_id, c.b_id].some((id) => [e.x, e.floor].includes(id)))).toEqual([]);
      expect(left.filter((c) => c.chain_id === e.chain)).toEqual([]);
      const kept = left.filter((c) => [e.p, e.q, e.y, e.z].includes(c.a_id) && [e.p, e.q, e.y, e.z].includes(c.b_id));
      expect(kept.map((c) => [c.a_id, c.b_id, c.direction])).toEqual([
        [e.y, e.z, 'none'],
        [e.p, e.q, 'both'],
      ]);
      expect(kept[0].chain_id).toBe(e.xChain);
    }
    expect(await crowded.list()).toHaveLength(UNRELATED + 2);
  }, 120_000);

  it('a batch of 24 (its listings committed beside it) and a single create of one of its pairs race: exactly one is made (8 rounds)', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Business');
    const scope = { project_id: projectId, environment_id: envId };
    const named = (name: string) => createService(api, token, projectId, envId, { name }).then((s) => s.id as string);
    const spokes = await Promise.all(Array.from({ length: 24 }, (_, i) => named(`spoke-${i}`)));
    for (let round = 0; round < 8; round++) {
      const hub = await named(`hub-${round}`);
      const items = spokes.map((s) => svc(hub, s, { direction: 'a_to_b' }));
      // The same pair the other way round: b → a is a → b.
      const single = svc(spokes[round * 3], hub, { direction: 'b_to_a' });
      const [batch, one] = await Promise.all([
        api.post('/service-connections/batch', { ...scope, group_kind: 'hub', items }, { token }),
        api.post('/service-connections', { ...scope, ...single }, { token }),
      ]);
      expect([batch.status, one.status].sort(), `round ${round}`).toEqual([201, 400]);
      expect((batch.status === 400 ? batch : one).body).toEqual(DUPLICATE);
      const listed = (
        await api.get(`/service-connections?${new URLSearchParams({ ...scope, entity_id: hub })}`, { token })
      ).body as unknown[];
      expect(listed).toHaveLength(batch.status === 201 ? 24 : 1);
    }
  }, 60_000);

  it('a chain whose own listings are missing (a table not yet backfilled) is still patched and deleted whole', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Business');
    const scope = { project_id: projectId, environment_id: envId };
    const [a, b, c, d] = await Promise.all(
      ['a', 'b', 'c', 'd'].map(
        async (name) => (await createService(api, token, projectId, envId, { name })).id as string,
      ),
    );
    const made = await api.post(
      '/service-connections/batch',
      { ...scope, group_kind: 'chain', items: [svc(a, b), svc(b, c), svc(c, d)] },
      { token },
    );
    expect(made.status, made.text).toBe(201);
    const chainId = made.body[0].chain_id as string;
    const listings = await queryPrefix<{ PK: string; SK: string }>(
      projectId,
      keys.listingPrefix('CONN', envId, chainPlace(chainId)),
    );
    expect(listings).toHaveLength(3);
    for (const l of listings.slice(1)) await deleteItem({ PK: l.PK, SK: l.SK });
    const members = async () =>
      (await api.get(`/service-connections?${new URLSearchParams({ ...scope, chain_id: chainId })}`, { token }))
        .body as { name: string }[];

    const patched = await api.patch(`/service-connections/chains/${chainId}`, { name: 'whole' }, { token });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toHaveLength(3);
    expect((await members()).map((m) => m.name)).toEqual(['whole', 'whole', 'whole']);
    expect((await api.delete(`/service-connections/chains/${chainId}`, undefined, { token })).status).toBe(204);
    expect(await members()).toEqual([]);
    expect((await api.get(`/service-connections?${new URLSearchParams(scope)}`, { token })).body).toEqual([]);
  }, 60_000);

  it('the backfill lists the members of chains made before chains had listings of their own, once', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Business');
    const scope = { project_id: projectId, environment_id: envId };
    const [a, b, c] = await Promise.all(
      ['a', 'b', 'c'].map(async (name) => (await createService(api, token, projectId, envId, { name })).id as string),
    );
    const made = await api.post(
      '/service-connections/batch',
      { ...scope, group_kind: 'hub', items: [svc(a, b), svc(a, c)] },
      { token },
    );
    expect(made.status, made.text).toBe(201);
    const range = keys.listingPrefix('CONN', envId, chainPlace(made.body[0].chain_id));
    const before = await queryPrefix<{ PK: string; SK: string }>(projectId, range);
    expect(before).toHaveLength(2);
    expect(before.map((l) => (l as unknown as { id: string }).id).sort()).toEqual(
      made.body.map((m: { id: string }) => m.id).sort(),
    );
    // A table of the former layout: no chain listings, the connections' backfill recorded without the revision.
    for (const l of before) await deleteItem({ PK: l.PK, SK: l.SK });
    const marker = (await readItem(keys.migration('conn-listing')))!;
    expect(marker.version).toMatch(/\|r3$/);
    await putItem({ ...marker, version: String(marker.version).replace(/\|r3$/, '') });
    const done = await backfillListings();
    expect(done).toEqual({ CONN: { written: 2, removed: 0 } });
    expect(await queryPrefix(projectId, range)).toEqual(before);
    expect(await backfillListings()).toEqual({});
  });

  it('a new connection to a hub reads about its quieter end, not the hub; duplicates are still refused, hub to hub too', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Business');
    const scope = { project_id: projectId, environment_id: envId };
    const named = (name: string) => createService(api, token, projectId, envId, { name }).then((s) => s.id as string);
    const [h1, h2, t, u, v] = await Promise.all(['hub-1', 'hub-2', 't', 'u', 'v'].map(named));
    const spokes = await Promise.all(Array.from({ length: 120 }, (_, i) => named(`spoke-${i}`)));
    const post = (body: Record<string, unknown>) => api.post('/service-connections', { ...scope, ...body }, { token });
    // Both hubs joined to every spoke and to each other: 121 connections each, more than a probe.
    for (const hub of [h1, h2]) {
      for (let i = 0; i < spokes.length; i += 24) {
        const res = await api.post(
          '/service-connections/batch',
          {
            ...scope,
            group_kind: 'hub',
            items: spokes.slice(i, i + 24).map((s) => svc(hub, s, { direction: 'a_to_b' })),
          },
          { token },
        );
        expect(res.status, res.text).toBe(201);
      }
    }
    expect((await post(svc(h1, h2, { direction: 'a_to_b' }))).status).toBe(201);
    expect(spokes.length + 1).toBeGreaterThan(2 * END_PROBE);

    const read = countItemsRead(ddb());
    const counted = async (body: Record<string, unknown>, status: number) => {
      read.reset();
      const res = await post(body);
      expect(res.status, res.text).toBe(status);
      if (status === 400) expect(res.body).toEqual(DUPLICATE);
      return read.total();
    };
    const quiet = await counted(svc(u, v, { direction: 'a_to_b' }), 201);
    const toHub = await counted(svc(h1, t, { direction: 'a_to_b' }), 201);
    console.log(
      `items read by a new connection: between two quiet services ${quiet}, to a hub of ${spokes.length + 1} ${toHub}`,
    );
    expect(toHub).toBeLessThanOrEqual(quiet + END_PROBE);

    // Duplicates, decided from the spoke's side, the same pair written the other way round, and hub to hub.
    await counted(svc(h1, spokes[5], { direction: 'a_to_b' }), 400);
    await counted(svc(spokes[7], h2, { direction: 'b_to_a' }), 400);
    await counted(svc(h2, h1, { direction: 'b_to_a' }), 400);
    await counted(svc(h2, h1, { direction: 'a_to_b' }), 201);
    // A listing written before listings held their ends (a table not yet backfilled) still counts.
    const [old] = await queryPrefix<{ PK: string; SK: string; a_id?: string; b_id?: string }>(
      projectId,
      keys.listingPrefix('CONN', envId, spokes[9]),
    );
    expect([old.a_id, old.b_id]).toEqual([h1, spokes[9]]);
    const { a_id: _a, b_id: _b, ...withoutEnds } = old;
    await putItem(withoutEnds);
    await counted(svc(spokes[9], h1, { direction: 'b_to_a' }), 400);
    const listed = (
      await api.get(`/service-connections?${new URLSearchParams({ ...scope, entity_id: h1 })}`, { token })
    ).body as unknown[];
    expect(listed).toHaveLength(spokes.length + 3);
  }, 120_000);
});
