import { describe, expect, it } from 'vitest';
import ipaddr from 'ipaddr.js';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { keys } from '#db/keys';
import { ddb } from '#shared/clients';
import { queryPrefix } from '#db/query';
import { appContext } from '#shared/context';
import { byText } from '#shared/text';
import { applyImport, buildExportDocument, planImport } from '#domain/impex';
import { backfillListings } from '#domain/catalog';
import { deleteItem, putItem } from '#db/items';
import { countItemsRead } from '../bench/measure.ts';
import { createFloor, createNetwork, ownerWithEnv } from '../helpers/catalog.ts';
import { seedFloors, seedNetworks } from '../helpers/seed.ts';

/**
 * GET /service-floors and GET /networks read from listing items in hostname / name order,
 * with optional `offset` and `limit` beyond SPEC. The whole list (no `limit`) must be the one the
 * former path answered, the environment read whole, filtered and sorted in memory (kept here, as it
 * was, as the reference), and every page that list sliced, for every filter.
 */

// Its backfill reads and counts the whole table: a stack of its own, not one shared with other files.
const ref = useTestStack({}, { ownStack: true });
const api = client(() => ref.stack.url);

type Row = Record<string, unknown> & {
  id: string;
  tags: string[];
  deleted_at: string | null;
  archived_at?: string | null;
};
const lower = (s: unknown) => (typeof s === 'string' ? s.toLowerCase() : '');
const containsCi = (h: unknown, n: string) => Boolean(h && lower(h).includes(n.toLowerCase()));
const live = <T extends Row>(xs: T[]) => xs.filter((x) => !x.deleted_at && !x.archived_at);
const atLocation = (x: Row, text: string) =>
  [x.provider, x.provider_region, x.provider_zone].some((v) => containsCi(v, text));

/** The former GET /service-floors: a Query of the environment's floors, the live ones filtered, by hostname (byText). */
async function referenceFloors(projectId: string, envId: string, f: Record<string, string | string[] | undefined>) {
  const floors = live(await queryPrefix<Row>(projectId, keys.floorPrefix(envId)));
  return floors
    .filter((x) => !f.hostname || containsCi(x.hostname, f.hostname as string))
    .filter((x) => !f.tags?.length || x.tags.some((t) => (f.tags as string[]).map(lower).includes(lower(t))))
    .filter((x) => !f.type || x.floor_type === f.type)
    .filter((x) => !f.location || atLocation(x, f.location as string))
    .filter((x) => !f.zone || lower(x.provider_zone) === lower(f.zone))
    .sort(byText((x) => x.hostname as string | null))
    .map((x) => ({ id: x.id, hostname: x.hostname }));
}

/** The former GET /networks: a Query of the environment's networks, the live ones filtered, by name (byText). */
async function referenceNetworks(projectId: string, envId: string, f: Record<string, string | undefined>) {
  const networks = live(
    await queryPrefix<Row & { name: string; cidr: string; gateway: string | null; vlan_id: number | null }>(
      projectId,
      keys.networkPrefix(envId),
    ),
  );
  const range = f.range ? ipaddr.IPv4.parseCIDR(f.range) : undefined;
  const searchable = (n: (typeof networks)[number]) => {
    const bits = Number(n.cidr.split('/')[1]);
    return [
      n.name,
      n.cidr,
      n.gateway ?? '',
      n.vlan_id === null ? '' : String(n.vlan_id),
      `/${bits}`,
      ipaddr.IPv4.subnetMaskFromPrefixLength(bits).toString(),
    ];
  };
  return networks
    .filter((n) => !f.q || searchable(n).some((t) => containsCi(t, f.q!)))
    .filter((n) => f.vlan_id === undefined || n.vlan_id === Number(f.vlan_id))
    .filter((n) => f.mask === undefined || Number(n.cidr.split('/')[1]) === Number(f.mask))
    .filter((n) => {
      if (!range) return true;
      const [address, bits] = ipaddr.IPv4.parseCIDR(n.cidr);
      return bits >= range[1] && address.match(range);
    })
    .sort(byText((n) => n.name))
    .map((n) => ({ id: n.id, name: n.name }));
}

/** Names that differ in case, accents, punctuation, digits, scripts and ligatures (ties go by id). */
const STEMS = [
  'api',
  'API',
  'Api-gateway',
  'api gateway',
  'api_gateway',
  'Ärger',
  'arger',
  'aerger',
  'Æther',
  'aether',
  'Straße',
  'strasse',
  'Œuvre',
  'oeuvre',
  'élan',
  'Elan',
  'e-lan',
  'zeta',
  'ζήτα',
  'Жук',
  '日本',
  'ｆｕｌｌ',
  'full',
  'ﬁle',
  'file',
  '10',
  '9',
  '1-0',
  '#hash',
  '(paren)',
  '!bang',
  '~tilde',
  'x😀',
  'x',
  'x.y',
  "x'y",
  'İi',
  'ǅemal',
  'Ångström',
  'angstrom',
];
const TAGS = ['red', 'Green', 'blue', 'RED'];
const TYPES = ['vm', 'container', 'baremetal', 'other'];
const ZONES = [
  { provider: 'aws', provider_region: 'eu-west-1', provider_zone: 'eu-west-1a' },
  { provider: 'gcp', provider_region: 'us-east1', provider_zone: 'us-east1-b' },
  {},
];
const PAGES: [number, number][] = [
  [0, 1],
  [0, 10],
  [1, 10],
  [7, 50],
  [49, 50],
  [100, 1000],
  [140, 7],
  [149, 5],
  [150, 10],
  [400, 10],
];

const query = (f: Record<string, string | string[] | undefined>) =>
  Object.entries(f)
    .flatMap(([k, v]) =>
      v === undefined
        ? []
        : Array.isArray(v)
          ? v.map((x) => `&${k}=${encodeURIComponent(x)}`)
          : [`&${k}=${encodeURIComponent(v)}`],
    )
    .join('');

/** Runs in batches (the local stack's two cores). */
async function inBatches<T>(n: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let batch = 0; batch < n; batch += 25)
    out.push(...(await Promise.all(Array.from({ length: Math.min(25, n - batch) }, (_, j) => make(batch + j)))));
  return out;
}

describe('GET /service-floors and GET /networks page from listing items', () => {
  it('answers every filter, whole and in pages, as the former in-memory path did, through renames, changes, deletes, archives and an import', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Business');
    const floorFields = (i: number) => ({
      type: TYPES[i % TYPES.length],
      // Hostnames repeat (ties go by id), and some floors have none (first, as the empty name).
      ...(i % 19 === 0
        ? {}
        : { hostname: `${STEMS[i % STEMS.length]}${i % 3 === 0 ? '' : ` ${Math.floor(i / STEMS.length)}`}` }),
      tags: i % 5 === 0 ? [] : [TAGS[i % TAGS.length], TAGS[(i * 7) % TAGS.length]],
      ...ZONES[i % ZONES.length],
    });
    const taken = new Set<string>();
    const networkFields = (i: number) => {
      // Names are unique per environment ignoring case (not accents: 'élan' and 'Elan' tie in the order).
      let name = `${STEMS[i % STEMS.length]}${i < STEMS.length ? '' : ` ${Math.floor(i / STEMS.length)}`}`;
      if (taken.has(name.toLowerCase())) name = `${name} #${i}`;
      taken.add(name.toLowerCase());
      const bits = 16 + (i % 9);
      return {
        name,
        cidr: `10.${i % 200}.0.0/${bits}`,
        ...(i % 4 === 0 ? { gateway: `10.${i % 200}.0.1` } : {}),
        ...(i % 6 === 0 ? { vlan_id: 1 + (i % 12) } : {}),
      };
    };
    // Of each, the first 25 through the API, the other 125 written as its create writes them (test/helpers/seed.ts):
    // the pages are what this test is about, and both kinds are in them.
    const floors: Record<string, any>[] = await inBatches(25, (i) =>
      createFloor(api, token, projectId, envId, floorFields(i)),
    );
    floors.push(
      ...(await seedFloors(
        projectId,
        envId,
        Array.from({ length: 125 }, (_, j) => floorFields(25 + j)),
      )),
    );
    const networks: Record<string, any>[] = await inBatches(25, (i) =>
      createNetwork(api, token, projectId, envId, networkFields(i)),
    );
    networks.push(
      ...(await seedNetworks(
        projectId,
        envId,
        Array.from({ length: 125 }, (_, j) => networkFields(25 + j)),
      )),
    );

    // Renames (elsewhere in the order, to a name differing only in case, to none), filter changes, deletes, archives.
    for (let i = 1; i < 150; i += 17)
      expect(
        (
          await api.patch(
            `/service-floors/${floors[i].id}`,
            { hostname: `renamed ${STEMS[(i * 3) % STEMS.length]}` },
            { token },
          )
        ).status,
      ).toBe(200);
    for (let i = 5; i < 150; i += 29)
      expect(
        (
          await api.patch(
            `/service-floors/${floors[i].id}`,
            { hostname: floors[i].hostname ? floors[i].hostname.toUpperCase() : 'NOW NAMED' },
            { token },
          )
        ).status,
      ).toBe(200);
    expect((await api.patch(`/service-floors/${floors[2].id}`, { hostname: null }, { token })).status).toBe(200);
    for (let i = 4; i < 150; i += 13)
      expect(
        (
          await api.patch(
            `/service-floors/${floors[i].id}`,
            { tags: ['blue'], type: 'baremetal', provider_zone: 'eu-central-1b' },
            { token },
          )
        ).status,
      ).toBe(200);
    for (let i = 3; i < 150; i += 23)
      expect((await api.delete(`/service-floors/${floors[i].id}`, undefined, { token })).status).toBe(204);
    for (let i = 1; i < 150; i += 16)
      expect(
        (
          await api.patch(
            `/networks/${networks[i].id}`,
            { name: `renamed ${STEMS[(i * 3) % STEMS.length]} ${i}` },
            { token },
          )
        ).status,
      ).toBe(200);
    for (let i = 2; i < 150; i += 13)
      expect(
        (
          await api.patch(
            `/networks/${networks[i].id}`,
            { cidr: '172.16.0.0/24', gateway: '172.16.0.1', vlan_id: 7 },
            { token },
          )
        ).status,
      ).toBe(200);
    for (let i = 6; i < 150; i += 31)
      expect((await api.patch(`/networks/${networks[i].id}`, { description: 'not listed' }, { token })).status).toBe(
        200,
      );
    for (let i = 3; i < 150; i += 23)
      expect((await api.delete(`/networks/${networks[i].id}`, undefined, { token })).status).toBe(204);
    const archivedIds = [floors[7].id, floors[100].id, floors[111].id];
    expect((await api.post('/me/mark-archived', { service_floors: archivedIds }, { token })).status).toBe(200);
    expect((await api.post('/me/unarchive', { service_floors: [floors[100].id] }, { token })).status).toBe(200);

    // An import that changes listed fields of existing floors and networks and creates new ones.
    const ctx = appContext();
    const document = await buildExportDocument({
      projectId,
      environmentId: envId,
      recordId: 'rec-paging',
      exportedAt: new Date().toISOString(),
    });
    const uniqueHosts = document.spec.service_floors.filter(
      (f, _, all) => all.filter((g) => lower(g.hostname) === lower(f.hostname)).length === 1,
    );
    document.spec.service_floors = uniqueHosts;
    uniqueHosts.slice(0, 20).forEach(
      (f, i) =>
        void Object.assign(f, {
          tags: ['imported'],
          provider_zone: i % 2 ? 'us-east1-c' : f.provider_zone,
          type: 'other',
        }),
    );
    document.spec.service_floors.push(
      ...Array.from({ length: 5 }, (_, i) => ({
        hostname: `imported host ${i}`,
        type: 'container' as const,
        tags: ['red'],
      })),
    );
    document.spec.networks
      .slice(0, 15)
      .forEach((n, i) => void Object.assign(n, { cidr: `192.168.${i}.0/24`, gateway: null, vlan_id: 42 }));
    document.spec.networks.push(
      ...Array.from({ length: 5 }, (_, i) => ({ name: `imported net ${i}`, cidr: `10.250.${i}.0/24` })),
    );
    const plan = await planImport({ projectId, environmentId: envId, document }, ctx);
    expect(plan.report.errors).toEqual([]);
    expect((await applyImport(plan, ctx)).errors).toEqual([]);

    const floorFilters: Record<string, string | string[] | undefined>[] = [
      {},
      { hostname: 'api' },
      { hostname: 'A' },
      { hostname: '-' },
      { hostname: 'renamed' },
      { tags: ['red'] },
      { tags: ['green', 'BLUE'] },
      { tags: ['imported'] },
      { type: 'baremetal' },
      { location: 'eu' },
      { location: 'EAST' },
      { zone: 'EU-WEST-1A' },
      { hostname: 'e', tags: ['red'], type: 'vm' },
      { hostname: 'nothing-matches' },
    ];
    for (const f of floorFilters) {
      const base = `/service-floors?project_id=${projectId}&environment_id=${envId}${query(f)}`;
      const whole = await api.get(base, { token });
      expect(whole.status, whole.text).toBe(200);
      const expected = await referenceFloors(projectId, envId, f);
      expect(
        whole.body.map((x: Row) => ({ id: x.id, hostname: x.hostname })),
        base,
      ).toEqual(expected);
      for (const [offset, limit] of PAGES) {
        const res = await api.get(`${base}&offset=${offset}&limit=${limit}`, { token });
        expect(res.status, res.text).toBe(200);
        expect(res.body, `${base} offset=${offset} limit=${limit}`).toEqual(whole.body.slice(offset, offset + limit));
      }
      expect((await api.get(`${base}&offset=3`, { token })).body).toEqual(whole.body.slice(3));
    }

    const networkFilters: Record<string, string | undefined>[] = [
      {},
      { q: 'api' },
      { q: 'A' },
      { q: '10.1' },
      { q: '/24' },
      { q: '255.255.0.0' },
      { q: 'renamed' },
      { vlan_id: '7' },
      { vlan_id: '42' },
      { mask: '24' },
      { range: '10.0.0.0/8' },
      { range: '10.1.0.0/16' },
      { q: 'e', mask: '20' },
      { q: 'nothing-matches' },
    ];
    for (const f of networkFilters) {
      const base = `/networks?project_id=${projectId}&environment_id=${envId}${query(f)}`;
      const whole = await api.get(base, { token });
      expect(whole.status, whole.text).toBe(200);
      expect(
        whole.body.map((x: Row) => ({ id: x.id, name: x.name })),
        base,
      ).toEqual(await referenceNetworks(projectId, envId, f));
      for (const [offset, limit] of PAGES) {
        const res = await api.get(`${base}&offset=${offset}&limit=${limit}`, { token });
        expect(res.status, res.text).toBe(200);
        expect(res.body, `${base} offset=${offset} limit=${limit}`).toEqual(whole.body.slice(offset, offset + limit));
      }
    }
    // The unfiltered lists hold what they should: enough of each to make the pages above meaningful.
    expect((await referenceFloors(projectId, envId, {})).length).toBeGreaterThan(140);
    expect((await referenceNetworks(projectId, envId, {})).length).toBeGreaterThan(140);
  }, 600_000);

  it('reads offset + limit listing items for an unfiltered page, and stops a filtered one when it is full; refuses a limit out of range', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Business');
    await seedFloors(
      projectId,
      envId,
      Array.from({ length: 120 }, (_, i) => ({
        type: 'vm',
        hostname: `host-${String(i).padStart(3, '0')}`,
        tags: i % 10 === 0 ? ['rare'] : [],
      })),
    );
    await seedNetworks(
      projectId,
      envId,
      Array.from({ length: 120 }, (_, i) => ({
        name: `net-${String(i).padStart(3, '0')}`,
        cidr: `10.${i}.0.0/24`,
        ...(i % 10 === 0 ? { vlan_id: 99 } : {}),
      })),
    );
    const read = countItemsRead(ddb());
    const pageOf = async (list: string, q: string, field: string) => {
      read.reset();
      const res = await api.get(`/${list}?project_id=${projectId}&environment_id=${envId}${q}`, { token });
      expect(res.status, res.text).toBe(200);
      return { names: res.body.map((x: Record<string, string>) => x[field]), read: read.byCommand() };
    };
    for (const [list, field, prefix, filter] of [
      ['service-floors', 'hostname', 'host', '&tags=rare'],
      ['networks', 'name', 'net', '&vlan_id=99'],
    ] as const) {
      const first = await pageOf(list, '&limit=10', field);
      expect(first.names).toEqual(Array.from({ length: 10 }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`));
      expect(first.read.QueryCommand).toBe(10); // the listing items of the page, nothing of the other 110
      const later = await pageOf(list, '&offset=20&limit=5', field);
      expect(later.names).toEqual([20, 21, 22, 23, 24].map((i) => `${prefix}-${String(i).padStart(3, '0')}`));
      expect(later.read.QueryCommand).toBe(25);
      const filtered = await pageOf(list, `${filter}&limit=2`, field);
      expect(filtered.names).toEqual([`${prefix}-000`, `${prefix}-010`]);
      expect(filtered.read.QueryCommand).toBeLessThan(120); // stopped once two matched, before the end of the environment
      for (const bad of ['&limit=0', '&limit=1001', '&offset=-1'])
        expect(
          (await api.get(`/${list}?project_id=${projectId}&environment_id=${envId}${bad}`, { token })).status,
        ).toBe(422);
    }
  }, 300_000);

  it('a backfill writes the listings a table misses and removes stale ones, once per name order', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Business');
    const made = await inBatches(6, (i) => createFloor(api, token, projectId, envId, { hostname: `bf-${i}` }));
    await inBatches(3, (i) =>
      createNetwork(api, token, projectId, envId, { name: `bf-net-${i}`, cidr: `10.9.${i}.0/24` }),
    );
    const listed = async () =>
      (await api.get(`/service-floors?project_id=${projectId}&environment_id=${envId}&limit=100`, { token })).body.map(
        (f: Row) => f.hostname,
      );
    // A table from before: two floors without listings, one listing of no floor; the floors' and networks' backfills not run.
    const listings = await queryPrefix<{ PK: string; SK: string; id: string }>(
      projectId,
      keys.listingPrefix('FLOOR', envId),
    );
    for (const l of listings.filter((x) => [made[1].id, made[4].id].includes(x.id)))
      await deleteItem({ PK: l.PK, SK: l.SK });
    await putItem({
      ...keys.listing('FLOOR', projectId, envId, 'zzz', '00000000-0000-4000-8000-000000000000'),
      id: '00000000-0000-4000-8000-000000000000',
      hostname: 'ghost',
      tags: [],
    });
    for (const kind of ['floor', 'network']) await deleteItem(keys.migration(`${kind}-listing`));
    expect(await listed()).toEqual(['bf-0', 'bf-2', 'bf-3', 'bf-5']); // the ghost's floor is not live, so it is left out
    const done = await backfillListings();
    expect(done.FLOOR).toEqual({ written: 2, removed: 1 });
    expect(done.NETWORK).toBeDefined();
    expect(done.SERVICE).toBeUndefined(); // already done for this name order
    expect(await listed()).toEqual(['bf-0', 'bf-1', 'bf-2', 'bf-3', 'bf-4', 'bf-5']);
    expect(await backfillListings()).toEqual({});
  });
});
