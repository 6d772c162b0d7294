import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { keys } from '#db/keys';
import { ddb } from '#shared/clients';
import { queryPrefix } from '#db/query';
import { byText } from '#shared/text';
import { countItemsRead } from '../bench/measure.ts';
import { createFloor, createService, ownerWithEnv, putGroup } from '../helpers/catalog.ts';
import { seedServices } from '../helpers/seed.ts';

/**
 * GET /services reads its page from listing items in name order. Every page must be the
 * one the former path answered: the environment's services read whole, filtered and sorted in
 * memory (kept here, as it was, as the reference), for every filter and offset.
 */

const ref = useTestStack();
const api = client(() => ref.stack.url);

type Row = Record<string, unknown> & {
  id: string;
  name: string;
  tags: string[];
  deleted_at: string | null;
  archived_at?: string | null;
};
const lower = (s: unknown) => (typeof s === 'string' ? s.toLowerCase() : '');
const containsCi = (h: unknown, n: string) => Boolean(h && lower(h).includes(n.toLowerCase()));

/** The former GET /services: a Query of the environment's services, the live ones filtered, by name (byText); type and names from Queries of floors and groups. A page is its slice at offset and limit. */
async function referenceList(
  projectId: string,
  envId: string,
  f: { name?: string; tags?: string[]; language?: string; location?: string },
) {
  const [services, floors, groups] = await Promise.all([
    queryPrefix<Row>(projectId, keys.servicePrefix(envId)),
    queryPrefix<Row>(projectId, keys.floorPrefix(envId)),
    queryPrefix<Row>(projectId, keys.groupPrefix(envId)),
  ]);
  const live = <T extends Row>(xs: T[]) => xs.filter((x) => !x.deleted_at && !x.archived_at);
  const floorType = new Map(live(floors).map((x) => [x.id, x.floor_type]));
  const groupName = new Map(live(groups).map((x) => [x.id, x.name]));
  return live(services)
    .filter((s) => !f.name || containsCi(s.name, f.name))
    .filter((s) => !f.tags?.length || s.tags.some((t) => f.tags!.map(lower).includes(lower(t))))
    .filter((s) => !f.language || lower(s.programming_language) === lower(f.language))
    .filter(
      (s) => !f.location || [s.provider, s.provider_region, s.provider_zone].some((x) => containsCi(x, f.location!)),
    )
    .sort(byText((s) => s.name))
    .map((s) => ({
      id: s.id,
      name: s.name,
      type: (s.service_floor_id && floorType.get(s.service_floor_id as string)) || 'serverless',
      group_name: (s.group_id && groupName.get(s.group_id as string)) || null,
    }));
}

/** Names that differ in case, accents, punctuation, digits, scripts and ligatures, with repeats (ties go by id). */
const STEMS = [
  'api',
  'API',
  'Api-gateway',
  'api gateway',
  'api_gateway',
  'apigateway',
  'Ärger',
  'arger',
  'aerger',
  'Æther',
  'aether',
  'Straße',
  'strasse',
  'STRASSE',
  'Œuvre',
  'oeuvre',
  'élan',
  'Elan',
  'e-lan',
  'zeta',
  'Zeta',
  'ζήτα',
  'Жук',
  'жук',
  '日本',
  '東京',
  'ｆｕｌｌ',
  'full',
  'ﬁle',
  'file',
  '10',
  '9',
  '1-0',
  '#hash',
  '(paren)',
  '[bracket]',
  '!bang',
  '~tilde',
  'x😀',
  'x',
  'xy',
  'x y',
  'x.y',
  'x,y',
  "x'y",
  'ıi',
  'İi',
  'ǅemal',
  'dzemal',
  'Ångström',
  'angstrom',
];
const TAGS = ['red', 'Green', 'blue', 'RED'];
const LANGS = ['Go', 'go', 'Rust', null];
const ZONES = [
  { provider: 'aws', provider_region: 'eu-west-1', provider_zone: 'eu-west-1a' },
  { provider: 'gcp', provider_region: 'us-east1', provider_zone: null },
  {},
];

describe('GET /services pages from listing items', () => {
  it('answers every filter and offset of a 300-service catalog as the former in-memory path did, through renames, changes, deletes and archives', async () => {
    const { owner, token, projectId, envId } = await ownerWithEnv(api, 'Business');
    const floor = await createFloor(api, token, projectId, envId, { type: 'vm', hostname: 'host-1' });
    const groupId = await putGroup(projectId, envId, 'team-a');
    const fields = (i: number): Record<string, unknown> => ({
      name: `${STEMS[i % STEMS.length]}${i % 3 === 0 ? '' : ` ${Math.floor(i / STEMS.length)}`}`,
      tags: i % 5 === 0 ? [] : [TAGS[i % TAGS.length], TAGS[(i * 7) % TAGS.length]],
      programming_language: LANGS[i % LANGS.length],
      ...ZONES[i % ZONES.length],
      ...(i % 4 === 0 ? { service_floor_id: floor.id } : {}),
      ...(i % 6 === 0 ? { group_id: groupId } : {}),
    });
    // The first 25 through the API, the other 275 written as its create writes them (test/helpers/seed.ts): the
    // pages are what this test is about, and both kinds are in them.
    const created: { id: string; name: string }[] = await Promise.all(
      Array.from({ length: 25 }, (_, i) => createService(api, token, projectId, envId, fields(i))),
    );
    created.push(
      ...(await seedServices(
        owner,
        projectId,
        envId,
        Array.from({ length: 275 }, (_, j) => fields(25 + j)),
      )),
    );
    // Renames (to another place, and to one differing only in case), filter changes, deletes, archives.
    for (let i = 0; i < 300; i += 17)
      expect(
        (await api.patch(`/services/${created[i].id}`, { name: `renamed ${STEMS[(i * 3) % STEMS.length]}` }, { token }))
          .status,
      ).toBe(200);
    for (let i = 5; i < 300; i += 29)
      expect(
        (await api.patch(`/services/${created[i].id}`, { name: created[i].name.toUpperCase() }, { token })).status,
      ).toBe(200);
    for (let i = 2; i < 300; i += 13)
      expect(
        (
          await api.patch(
            `/services/${created[i].id}`,
            { tags: ['blue'], programming_language: 'Rust', provider_zone: 'eu-central-1b' },
            { token },
          )
        ).status,
      ).toBe(200);
    for (let i = 3; i < 300; i += 23)
      expect((await api.delete(`/services/${created[i].id}`, undefined, { token })).status).toBe(204);
    const archivedIds = [created[7].id, created[100].id, created[211].id];
    expect((await api.post('/me/mark-archived', { services: archivedIds }, { token })).status).toBe(200);
    expect((await api.post('/me/unarchive', { services: [created[100].id] }, { token })).status).toBe(200);

    const filters: Record<string, string>[] = [
      {},
      { name: 'api' },
      { name: 'A' },
      { name: '-' },
      { name: 'renamed' },
      { tags: 'red' },
      { tags: 'green&tags=BLUE' },
      { language: 'GO' },
      { location: 'eu' },
      { location: 'EAST' },
      { name: 'e', tags: 'red', language: 'go' },
      { name: 'nothing-matches' },
    ];
    const pages: [number, number][] = [
      [0, 1000],
      [0, 1],
      [0, 10],
      [1, 10],
      [7, 50],
      [49, 50],
      [150, 200],
      [200, 200],
      [255, 7],
      [270, 50],
      [299, 5],
      [300, 10],
      [400, 10],
    ];
    for (const f of filters) {
      const query = Object.entries(f)
        .map(([k, v]) => `&${k}=${v.split('&')[0]}${v.includes('&') ? `&${v.split('&').slice(1).join('&')}` : ''}`)
        .join('');
      const filter = {
        name: f.name,
        language: f.language,
        location: f.location,
        tags: f.tags ? f.tags.split('&tags=') : undefined,
      };
      // Read once per filter: the GETs below change nothing it reads.
      const reference = await referenceList(projectId, envId, filter);
      for (const [offset, limit] of pages) {
        const res = await api.get(
          `/services?project_id=${projectId}&environment_id=${envId}${query}&offset=${offset}&limit=${limit}`,
          { token },
        );
        expect(res.status, res.text).toBe(200);
        const got = res.body.map((s: Record<string, unknown>) => ({
          id: s.id,
          name: s.name,
          type: s.type,
          group_name: s.group_name,
        }));
        expect(got, `${query} offset=${offset} limit=${limit}`).toEqual(reference.slice(offset, offset + limit));
      }
    }
  }, 300_000);

  it('reads offset + limit listing items for an unfiltered page, and stops a filtered one when it is full', async () => {
    const { owner, token, projectId, envId } = await ownerWithEnv(api, 'Business');
    await seedServices(
      owner,
      projectId,
      envId,
      Array.from({ length: 120 }, (_, i) => ({
        name: `svc-${String(i).padStart(3, '0')}`,
        tags: i % 10 === 0 ? ['rare'] : [],
      })),
    );
    const read = countItemsRead(ddb());
    const page = async (q: string) => {
      read.reset();
      const res = await api.get(`/services?project_id=${projectId}&environment_id=${envId}${q}`, { token });
      expect(res.status).toBe(200);
      return { names: res.body.map((s: { name: string }) => s.name), read: read.byCommand() };
    };
    const first = await page('&limit=10');
    expect(first.names).toEqual(Array.from({ length: 10 }, (_, i) => `svc-${String(i).padStart(3, '0')}`));
    expect(first.read.QueryCommand).toBe(10); // the listing items of the page, nothing of the other 110 services
    const later = await page('&offset=50&limit=5');
    expect(later.names).toEqual(['svc-050', 'svc-051', 'svc-052', 'svc-053', 'svc-054']);
    expect(later.read.QueryCommand).toBe(55);
    const filtered = await page('&tags=rare&limit=3');
    expect(filtered.names).toEqual(['svc-000', 'svc-010', 'svc-020']);
    expect(filtered.read.QueryCommand).toBeLessThan(120); // stopped once three matched, before the end of the environment
  }, 120_000);
});
