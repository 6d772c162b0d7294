import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { ddb } from '#shared/clients';
import { keys } from '#db/keys';
import { queryPrefix } from '#db/query';
import { deleteItem, putItem } from '#db/items';
import { appContext } from '#shared/context';
import { backfillListings } from '#domain/catalog';
import { applyImport, environmentDocument, IMPEX_API_VERSION, planImport } from '#domain/impex';
import { countItemsRead } from '../bench/measure.ts';
import { newEnv, ownerWithEnv } from '../helpers/catalog.ts';

/**
 * A service's links (GET /service-links?service_id=, a service's delete) are read from its
 * own listing range, never every link of the environment; the answers are the ones the whole list,
 * filtered, gives.
 */

// Its backfill reads and counts the whole table: a stack of its own, not one shared with other files.
const ref = useTestStack({}, { ownStack: true });
const api = client(() => ref.stack.url);

type Link = {
  id: string;
  from_service_id: string;
  to_service_id: string;
  created_at: string;
  deleted_at: string | null;
};

/** `n` distinct ordered pairs of `names` (no service linked to itself), in a fixed shuffled order. */
function pairs(names: string[], n: number): [string, string][] {
  const all: [string, string][] = [];
  for (const a of names) for (const b of names) if (a !== b) all.push([a, b]);
  let seed = 7;
  for (let i = all.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const j = seed % (i + 1);
    [all[i], all[j]] = [all[j], all[i]];
  }
  return all.slice(0, n);
}

/** Services and links imported into an environment (one import: its links share a created_at, ordered by id), with the services' ids by name. */
async function imported(projectId: string, envId: string, services: string[], links: [string, string][]) {
  const document = environmentDocument.parse({
    apiVersion: IMPEX_API_VERSION,
    kind: 'Environment',
    spec: { services: services.map((name) => ({ name })), service_links: links.map(([from, to]) => ({ from, to })) },
  });
  const ctx = appContext();
  expect((await applyImport(await planImport({ projectId, environmentId: envId, document }, ctx), ctx)).errors).toEqual(
    [],
  );
}

function scoped(token: string, projectId: string, envId: string) {
  const scope = { project_id: projectId, environment_id: envId };
  const list = async (query: Record<string, string> = {}) => {
    const res = await api.get(`/service-links?${new URLSearchParams({ ...scope, ...query })}`, { token });
    expect(res.status, res.text).toBe(200);
    return res.body as Link[];
  };
  const ids = async () => {
    const res = await api.get(`/services?${new URLSearchParams({ ...scope, limit: '1000' })}`, { token });
    expect(res.status, res.text).toBe(200);
    return Object.fromEntries((res.body as { id: string; name: string }[]).map((s) => [s.name, s.id])) as Record<
      string,
      string
    >;
  };
  return { scope, list, ids };
}

describe('a service’s links are read from its own listings', () => {
  it('GET /service-links?service_id= and a service’s delete read the same items beside 60 other links', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Business');
    const others = Array.from({ length: 12 }, (_, i) => `other-${i}`);
    const subject = ['x', 'y', 'z'];
    const own: [string, string][] = [
      ['x', 'y'],
      ['z', 'x'],
      ['y', 'z'],
    ];
    const quiet = scoped(token, projectId, envId);
    const crowdedEnv = await newEnv(api, token, projectId);
    const crowded = scoped(token, projectId, crowdedEnv);
    await imported(projectId, envId, [...subject, ...others], own);
    await imported(projectId, crowdedEnv, [...subject, ...others], [...own, ...pairs(others, 60)]);
    expect(await crowded.list()).toHaveLength(63);
    const read = countItemsRead(ddb());
    const counted = async (fn: () => Promise<void>) => {
      read.reset();
      await fn();
      return read.total();
    };

    const figures: Record<string, { quiet: number; crowded: number }> = {
      'GET /service-links?service_id=x': { quiet: 0, crowded: 0 },
      'DELETE /services/{x} (2 links)': { quiet: 0, crowded: 0 },
    };
    for (const [name, e] of [
      ['quiet', quiet],
      ['crowded', crowded],
    ] as const) {
      const { x, y, z } = await e.ids();
      figures['GET /service-links?service_id=x'][name] = await counted(async () => {
        const links = await e.list({ service_id: x });
        expect(links.map((l) => `${l.from_service_id}>${l.to_service_id}`).sort()).toEqual(
          [`${x}>${y}`, `${z}>${x}`].sort(),
        );
      });
      figures['DELETE /services/{x} (2 links)'][name] = await counted(async () => {
        expect((await api.delete(`/services/${x}`, undefined, { token })).status).toBe(204);
      });
      expect(await e.list({ service_id: x })).toEqual([]);
    }
    console.log(
      `items read (quiet environment / with 60 other links):\n${Object.entries(figures)
        .map(([k, v]) => `  ${k}: ${v.quiet} / ${v.crowded}`)
        .join('\n')}`,
    );
    for (const [label, { quiet: q, crowded: c }] of Object.entries(figures)) {
      expect(c, label).toBeLessThanOrEqual(q);
      expect(c, label).toBeLessThan(60);
    }
    // What the deletes left: y → z in each environment, and the other links untouched.
    for (const e of [quiet, crowded]) {
      const { y, z } = await e.ids();
      expect((await e.list({ service_id: y })).map((l) => [l.from_service_id, l.to_service_id])).toEqual([[y, z]]);
    }
    expect(await crowded.list()).toHaveLength(61);
  }, 60_000);

  it('in a 60-link environment, after deletes, each service’s list is the whole list filtered, in its order', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Business');
    const names = Array.from({ length: 12 }, (_, i) => `s-${i}`);
    const chosen = pairs(names, 60);
    // Half imported (one created_at, ordered by id), half made one by one.
    await imported(projectId, envId, names, chosen.slice(0, 30));
    const { scope, list, ids } = scoped(token, projectId, envId);
    const id = await ids();
    for (let i = 30; i < 60; i += 10) {
      await Promise.all(
        chosen.slice(i, i + 10).map(async ([from, to]) => {
          const res = await api.post(
            '/service-links',
            { ...scope, from_service_id: id[from], to_service_id: id[to] },
            { token },
          );
          expect(res.status, res.text).toBe(201);
        }),
      );
    }
    const made = await list();
    expect(made).toHaveLength(60);
    expect(new Set(made.map((l) => l.created_at)).size).toBeLessThan(60);
    // Deletes: every seventh link, then a service (its links with it).
    for (const l of made.filter((_, i) => i % 7 === 3))
      expect((await api.delete(`/service-links/${l.id}`, undefined, { token })).status).toBe(204);
    expect((await api.delete(`/services/${id['s-5']}`, undefined, { token })).status).toBe(204);
    const whole = await list();
    const touching = (l: Link, s: string) => l.from_service_id === s || l.to_service_id === s;
    expect(whole.length).toBe(made.filter((l, i) => i % 7 !== 3 && !touching(l, id['s-5'])).length);
    for (const s of Object.values(id))
      expect(await list({ service_id: s }), s).toEqual(whole.filter((l) => touching(l, s)));
    // A sync still reads the environment's links: the deleted ones are in it.
    const sync = await list({ service_id: id['s-5'], updated_since: made[0].created_at });
    expect(sync.length).toBeGreaterThan(0);
    expect(sync.every((l) => l.deleted_at !== null)).toBe(true);
  }, 60_000);

  it('the backfill lists links a table misses and removes stale listings, once', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Business');
    await imported(
      projectId,
      envId,
      ['a', 'b', 'c'],
      [
        ['a', 'b'],
        ['b', 'c'],
        ['c', 'a'],
      ],
    );
    const { list, ids } = scoped(token, projectId, envId);
    const { a, b, c } = await ids();
    const whole = await list();
    // A table from before: no link listings but a stale one, the links' backfill not run.
    const listings = await queryPrefix<{ PK: string; SK: string }>(projectId, keys.listingPrefix('LINK', envId));
    expect(listings).toHaveLength(6);
    for (const l of listings) await deleteItem({ PK: l.PK, SK: l.SK });
    const ghost = '00000000-0000-4000-8000-000000000000';
    await putItem({ ...keys.listing('LINK', projectId, envId, '2000-01-01T00:00:00.000Z', ghost, a), id: ghost });
    await deleteItem(keys.migration('link-listing'));
    expect(await list({ service_id: a })).toEqual([]);
    expect(await backfillListings()).toEqual({ LINK: { written: 6, removed: 1 } });
    for (const s of [a, b, c])
      expect(await list({ service_id: s })).toEqual(
        whole.filter((l) => l.from_service_id === s || l.to_service_id === s),
      );
    expect(await backfillListings()).toEqual({});
  });
});
