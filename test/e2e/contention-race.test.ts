import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, type ApiResponse } from '../helpers/http.ts';
import { createFloor, createNetwork, createService, ownerWithEnv } from '../helpers/catalog.ts';

/**
 * A write that loses a race over our own bookkeeping (a listing's order key, a name
 * claim, an audit head) reads again and retries with jittered back-off (#db/retry's `onContention`)
 * instead of refusing the caller; 8 parallel renames of one item are answered 200. A refusal that
 * still happens (its attempts spent) is 409 with `Retry-After`, which every client retries as a 503.
 * After each round the item is listed once, under the name its own read shows.
 */
const ref = useTestStack();
const api = client(() => ref.stack.url);
const ROUNDS = 10;
const WRITERS = 8;
const CONCURRENT_CHANGE = 'The request conflicted with a concurrent change. Please retry.';
const DIRECTIONS = ['none', 'a_to_b', 'b_to_a'];

interface Ctx {
  token: string;
  projectId: string;
  envId: string;
}
interface Kind {
  path: (id: string) => string;
  /** The list the item appears in, and the field that names it there. */
  list: (c: Ctx) => string;
  field: string;
  create: (c: Ctx, name: string) => Promise<string>;
  /** What writer `i` sends besides the name (absent: the name only). */
  alongside?: (i: number) => Record<string, unknown>;
  /** The route that reads one (absent: none, its list row stands for it). */
  readable?: false;
}

const KINDS: Record<string, Kind> = {
  service: {
    path: (id) => `/services/${id}`,
    list: (c) => `/services?project_id=${c.projectId}&environment_id=${c.envId}&limit=1000`,
    field: 'name',
    create: async (c, name) => (await createService(api, c.token, c.projectId, c.envId, { name })).id,
  },
  'service floor': {
    path: (id) => `/service-floors/${id}`,
    list: (c) => `/service-floors?project_id=${c.projectId}&environment_id=${c.envId}&limit=1000`,
    field: 'hostname',
    create: async (c, hostname) => (await createFloor(api, c.token, c.projectId, c.envId, { hostname })).id,
  },
  network: {
    path: (id) => `/networks/${id}`,
    list: (c) => `/networks?project_id=${c.projectId}&environment_id=${c.envId}&limit=1000`,
    field: 'name',
    create: async (c, name) => (await createNetwork(api, c.token, c.projectId, c.envId, { name })).id,
  },
  connection: {
    path: (id) => `/service-connections/${id}`,
    list: (c) => `/service-connections?project_id=${c.projectId}&environment_id=${c.envId}`,
    field: 'name',
    readable: false,
    // Some writers turn it round as well: a direction change takes its turn in the environment's duplicate check.
    alongside: (i) => ({ direction: DIRECTIONS[i % DIRECTIONS.length] }),
    create: async (c, name) => {
      const [a, b] = await Promise.all([
        createService(api, c.token, c.projectId, c.envId),
        createService(api, c.token, c.projectId, c.envId),
      ]);
      const res = await api.post(
        '/service-connections',
        {
          project_id: c.projectId,
          environment_id: c.envId,
          a_type: 'service',
          a_id: a.id,
          b_type: 'service',
          b_id: b.id,
          name,
        },
        { token: c.token },
      );
      expect(res.status, res.text).toBe(201);
      return res.body.id as string;
    },
  },
};

/** A lost race, answered so that a client knows to retry it: 409 with SPEC's words and `Retry-After: 1`. */
function expectAnsweredOrRetryable(res: ApiResponse, what: string) {
  if (res.status === 200) return;
  expect(res.status, `${what}: ${res.text}`).toBe(409);
  expect(res.body.detail, what).toBe(CONCURRENT_CHANGE);
  expect(res.headers.get('retry-after'), what).toBe('1');
}

describe('contested writes are absorbed, or refused with Retry-After', () => {
  for (const [label, kind] of Object.entries(KINDS)) {
    it(`${WRITERS} parallel renames of one ${label}, ${ROUNDS} rounds: each 200 (or 409 with Retry-After), and the list holds it once under the name its read shows`, async () => {
      const { token, projectId, envId } = await ownerWithEnv(api, 'Enterprise');
      const ctx = { token, projectId, envId };
      let answered = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const id = await kind.create(ctx, `r${round}-start`);
        const names = Array.from({ length: WRITERS }, (_, i) => `r${round}-name-${i}`);
        const answers = await Promise.all(
          names.map((name, i) => api.patch(kind.path(id), { [kind.field]: name, ...kind.alongside?.(i) }, { token })),
        );
        answers.forEach((a, i) => {
          expectAnsweredOrRetryable(a, `round ${round}, writer ${i}`);
        });
        answered += answers.filter((a) => a.status === 200).length;
        const list = await api.get(kind.list(ctx), { token });
        expect(list.status, list.text).toBe(200);
        const rows = (list.body as Record<string, unknown>[]).filter((r) => r.id === id);
        expect(rows, `round ${round}: listed once`).toHaveLength(1);
        if (kind.readable !== false) {
          const read = await api.get(kind.path(id), { token });
          expect(read.status, read.text).toBe(200);
          expect(rows[0][kind.field], `round ${round}: the list shows what the item's read does`).toBe(
            read.body[kind.field],
          );
        }
        expect(names, `round ${round}: one of the names asked for`).toContain(rows[0][kind.field]);
      }
      // 8-way contention on one item is answered 200 at least 99 % of the time: of 80, every one (a loser loses at most once to each other writer, and has 10 tries).
      expect(answered, `${answered} of ${ROUNDS * WRITERS} answered 200`).toBeGreaterThanOrEqual(
        Math.ceil(0.99 * ROUNDS * WRITERS),
      );
    }, 120_000);
  }

  it('a refusal that retrying cannot change stays a plain 409, without Retry-After', async () => {
    const { token } = await ownerWithEnv(api, 'Team');
    const plans = (await api.get('/plans')).body as { id: string; name: string; interval: string }[];
    const team = plans.find((p) => p.name === 'Team' && p.interval === 'monthly')!.id;
    const res = await api.post('/subscriptions/choose', { plan_id: team }, { token });
    expect([res.status, res.body]).toEqual([409, { detail: 'You are already subscribed to this plan' }]);
    expect(res.headers.get('retry-after')).toBeNull();
  });
});
