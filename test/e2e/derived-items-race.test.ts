import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { createFloor, createNetwork, createService, ownerWithEnv } from '../helpers/catalog.ts';

/**
 * Every write that keeps a derived item (a name-ordered listing, a name claim) in
 * step with its source does so in the same conditional transaction, so concurrent writes to one
 * source never leave a derived item behind. Each race runs ROUNDS times; after each round what the
 * lists show agrees with what the item's own read shows, and every name the item does not hold is
 * free again.
 */
const ref = useTestStack();
const api = client(() => ref.stack.url);
const ROUNDS = 20;
/** The parallel renames: each round is 6 writers on one item, so each already holds the contention a round is for. */
const PARALLEL_ROUNDS = 10;

interface Kind {
  /** The list the item appears in (its path and query), and the field that names it there. */
  list: (ctx: Ctx) => string;
  field: string;
  /** Creates one (named `name`) and answers its id. */
  create: (ctx: Ctx, name: string) => Promise<string>;
  path: (id: string) => string;
  /** Whether the name is unique in its scope (held by a claim). */
  claimed: boolean;
  /** The route that reads one (absent: none, its list row stands for it). */
  readable?: false;
}
interface Ctx {
  token: string;
  projectId: string;
  envId: string;
}

const KINDS: Record<string, Kind> = {
  service: {
    list: (c) => `/services?project_id=${c.projectId}&environment_id=${c.envId}&limit=1000`,
    field: 'name',
    claimed: false,
    path: (id) => `/services/${id}`,
    create: async (c, name) => (await createService(api, c.token, c.projectId, c.envId, { name })).id,
  },
  floor: {
    list: (c) => `/service-floors?project_id=${c.projectId}&environment_id=${c.envId}&limit=1000`,
    field: 'hostname',
    claimed: false,
    path: (id) => `/service-floors/${id}`,
    create: async (c, hostname) => (await createFloor(api, c.token, c.projectId, c.envId, { hostname })).id,
  },
  network: {
    list: (c) => `/networks?project_id=${c.projectId}&environment_id=${c.envId}&limit=1000`,
    field: 'name',
    claimed: true,
    path: (id) => `/networks/${id}`,
    create: async (c, name) => (await createNetwork(api, c.token, c.projectId, c.envId, { name })).id,
  },
  environment: {
    list: (c) => `/environments?project_id=${c.projectId}`,
    field: 'name',
    claimed: true,
    path: (id) => `/environments/${id}`,
    readable: false,
    create: async (c, name) =>
      created(await api.post('/environments', { name, project_id: c.projectId }, { token: c.token })),
  },
  group: {
    list: (c) => `/groups?project_id=${c.projectId}&environment_id=${c.envId}`,
    field: 'name',
    claimed: true,
    path: (id) => `/groups/${id}`,
    readable: false,
    create: async (c, name) =>
      created(
        await api.post('/groups', { name, project_id: c.projectId, environment_id: c.envId }, { token: c.token }),
      ),
  },
  'custom role': {
    list: (c) => `/projects/${c.projectId}/custom-roles`,
    field: 'name',
    claimed: true,
    path: (id) => `/projects/{project}/custom-roles/${id}`,
    readable: false,
    create: async (c, name) =>
      created(
        await api.post(
          `/projects/${c.projectId}/custom-roles`,
          { name, permissions: ['services.view'] },
          { token: c.token },
        ),
      ),
  },
};

function created(res: { status: number; text: string; body: any }): string {
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

const pathOf = (kind: Kind, ctx: Ctx, id: string) => kind.path(id).replace('{project}', ctx.projectId);

/** The rows of the list naming `id`. */
async function rowsOf(kind: Kind, ctx: Ctx, id: string): Promise<Record<string, unknown>[]> {
  const res = await api.get(kind.list(ctx), { token: ctx.token });
  expect(res.status, res.text).toBe(200);
  return (res.body as Record<string, unknown>[]).filter((r) => r.id === id);
}

/** Every name in `names` but `held` can be taken: a second item of the kind is renamed to each in turn. */
async function expectNamesFree(kind: Kind, ctx: Ctx, otherId: string, names: string[], round: number) {
  for (const name of names) {
    const res = await api.patch(pathOf(kind, ctx, otherId), { [kind.field]: name }, { token: ctx.token });
    expect(res.status, `round ${round}: "${name}" should be free again: ${res.text}`).toBe(200);
  }
}

async function setUp() {
  const { token, projectId, envId } = await ownerWithEnv(api, 'Enterprise');
  return { token, projectId, envId };
}

describe('concurrent renames keep every derived item in step', () => {
  for (const [label, kind] of Object.entries(KINDS)) {
    it(`parallel renames of one ${label}: it is listed once, under the name its read shows, and the other names are free (${PARALLEL_ROUNDS} rounds)`, async () => {
      const ctx = await setUp();
      const other = await kind.create(ctx, 'the-other');
      for (let round = 0; round < PARALLEL_ROUNDS; round++) {
        const id = await kind.create(ctx, `r${round}-start`);
        const names = Array.from({ length: 6 }, (_, i) => `r${round}-name-${i}`);
        const answers = await Promise.all(
          names.map((name) => api.patch(pathOf(kind, ctx, id), { [kind.field]: name }, { token: ctx.token })),
        );
        // Each rename either wins or is told of the concurrent change; none is half-applied.
        for (const a of answers) expect([200, 409], a.text).toContain(a.status);
        const rows = await rowsOf(kind, ctx, id);
        expect(rows, `round ${round}: listed once`).toHaveLength(1);
        const held = rows[0][kind.field] as string;
        if (kind.readable !== false) {
          const read = await api.get(pathOf(kind, ctx, id), { token: ctx.token });
          expect(read.status, read.text).toBe(200);
          expect(read.body[kind.field], `round ${round}: the list shows what the item's read does`).toBe(held);
        }
        expect(names).toContain(held);
        if (kind.claimed)
          await expectNamesFree(
            kind,
            ctx,
            other,
            [...names, `r${round}-start`].filter((n) => n !== held),
            round,
          );
      }
    }, 120_000);

    it(`a rename racing the delete of one ${label}: it leaves no row and no name behind (${ROUNDS} rounds)`, async () => {
      const ctx = await setUp();
      const other = await kind.create(ctx, 'the-other');
      for (let round = 0; round < ROUNDS; round++) {
        const id = await kind.create(ctx, `d${round}-start`);
        const renamed = `d${round}-renamed`;
        const [rename, del] = await Promise.all([
          api.patch(pathOf(kind, ctx, id), { [kind.field]: renamed }, { token: ctx.token }),
          api.delete(pathOf(kind, ctx, id), undefined, { token: ctx.token }),
        ]);
        expect([200, 404, 409], rename.text).toContain(rename.status);
        expect(del.status, del.text).toBe(204);
        expect(await rowsOf(kind, ctx, id), `round ${round}`).toEqual([]);
        if (kind.claimed) await expectNamesFree(kind, ctx, other, [`d${round}-start`, renamed], round);
      }
    }, 120_000);
  }

  it(`a service's update racing its network attachment: both land, and the list shows the update (${ROUNDS} rounds)`, async () => {
    const ctx = await setUp();
    const network = await createNetwork(api, ctx.token, ctx.projectId, ctx.envId);
    for (let round = 0; round < ROUNDS; round++) {
      const service = await createService(api, ctx.token, ctx.projectId, ctx.envId, { name: `a${round}-start` });
      const [patch, attach] = await Promise.all([
        api.patch(`/services/${service.id}`, { name: `a${round}-renamed`, tags: ['t'] }, { token: ctx.token }),
        api.patch(`/attachments/services/${service.id}/networks`, { network_ids: [network.id] }, { token: ctx.token }),
      ]);
      expect(patch.status, patch.text).toBe(200);
      expect(attach.status, attach.text).toBe(200);
      const rows = await rowsOf(KINDS.service, ctx, service.id);
      expect(
        rows.map((r) => [r.name, r.tags]),
        `round ${round}`,
      ).toEqual([[`a${round}-renamed`, ['t']]]);
      const attached = await api.get(`/attachments/services/${service.id}/networks`, { token: ctx.token });
      expect(
        attached.body.networks.map((n: { id: string }) => n.id),
        `round ${round}`,
      ).toEqual([network.id]);
    }
  });
});
