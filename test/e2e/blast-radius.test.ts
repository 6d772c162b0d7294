import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { grantRole } from '../helpers/tenancy.ts';
import { addFloor, addService, connect, link, ownerWithEnv, removeService } from '../helpers/topology.ts';
import { putConnection } from '../helpers/catalog.ts';

const ref = useTestStack();
const api = client(() => ref.stack.url);

type Ref = { type: 'service' | 'floor'; id: string };
const S = (id: string): Ref => ({ type: 'service', id });
const F = (id: string): Ref => ({ type: 'floor', id });

async function env() {
  const base = await ownerWithEnv(api);
  const { owner, projectId, envId } = base;
  const scope = { project_id: projectId, environment_id: envId };
  return {
    ...base,
    scope,
    service: (name: string, fields: Record<string, unknown> = {}) =>
      addService(api, owner.token, projectId, envId, name, fields),
    floor: (hostname: string) => addFloor(api, owner.token, projectId, envId, hostname),
    link: (from: string, to: string) => link(api, owner.token, projectId, envId, from, to),
    connect: (a: Ref, b: Ref, direction: string) =>
      connect(api, owner.token, { ...scope, a_type: a.type, a_id: a.id, b_type: b.type, b_id: b.id, direction }),
    blast: async (origin: Ref, query = '', token = owner.token) => {
      const path =
        origin.type === 'service' ? `/services/${origin.id}/blast-radius` : `/service-floors/${origin.id}/blast-radius`;
      return api.get(`${path}${query}`, { token });
    },
  };
}

/** id → distance, for compact assertions. */
const distances = (body: { affected: { id: string; distance: number }[] }) =>
  Object.fromEntries(body.affected.map((a) => [a.id, a.distance]));

describe('GET /services/{service_id}/blast-radius', () => {
  it('follows a three-hop chain (link, link, connection) with distances and paths from the origin', async () => {
    const e = await env();
    const db = await e.service('db');
    const app = await e.service('api');
    const web = await e.service('web');
    const edge = await e.service('edge');
    await e.link(app, db); // api depends on db
    await e.link(web, app); // web depends on api
    await e.connect(S(edge), S(web), 'a_to_b'); // edge calls web
    const res = await e.blast(S(db));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      origin: { type: 'service', id: db, name: 'db' },
      max_depth: 10,
      affected: [
        { type: 'service', id: app, name: 'api', distance: 1, via: 'link', path: [S(db), S(app)] },
        { type: 'service', id: web, name: 'web', distance: 2, via: 'link', path: [S(db), S(app), S(web)] },
        {
          type: 'service',
          id: edge,
          name: 'edge',
          distance: 3,
          via: 'connection',
          path: [S(db), S(app), S(web), S(edge)],
        },
      ],
      counts: { services: 3, floors: 0 },
      truncated: false,
    });
    // Upstream failures do not travel downstream: edge failing affects nothing (nobody depends on it).
    expect((await e.blast(S(edge))).body.affected).toEqual([]);
    // web failing affects edge only.
    expect(distances((await e.blast(S(web))).body)).toEqual({ [edge]: 1 });
  });

  it('bounds the depth with max_depth (1 to 20) and says when it cut the answer short', async () => {
    const e = await env();
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push(await e.service(`s${i}`));
    for (let i = 1; i < 4; i++) await e.link(ids[i], ids[i - 1]); // s3 → s2 → s1 → s0
    const two = await e.blast(S(ids[0]), '?max_depth=2');
    expect(two.body).toMatchObject({ max_depth: 2, truncated: true, counts: { services: 2, floors: 0 } });
    expect(distances(two.body)).toEqual({ [ids[1]]: 1, [ids[2]]: 2 });
    const three = await e.blast(S(ids[0]), '?max_depth=3');
    expect(three.body).toMatchObject({ max_depth: 3, truncated: false });
    expect(three.body.affected).toHaveLength(3);
    for (const bad of ['0', '21', 'x', '2.5']) {
      const res = await e.blast(S(randomUUID()), `?max_depth=${bad}`);
      expect(res.status, bad).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['query', 'max_depth']);
    }
  });

  it('terminates on loops and takes the shortest path', async () => {
    const e = await env();
    const [a, b, c, d] = [await e.service('a'), await e.service('b'), await e.service('c'), await e.service('d')];
    // A dependency cycle a → b → c → a, plus d depending on both c and a.
    await e.link(a, b);
    await e.link(b, c);
    await e.link(c, a);
    await e.link(d, c);
    await e.link(d, a);
    await e.connect(S(b), S(d), 'both');
    const res = await e.blast(S(a));
    expect(res.status).toBe(200);
    // c depends on a (1); d depends on a directly (1), not via c (2); b depends on c (2); a itself never appears.
    expect(distances(res.body)).toEqual({ [c]: 1, [d]: 1, [b]: 2 });
    expect(res.body.affected.find((x: { id: string }) => x.id === d).path).toEqual([S(a), S(d)]);
    expect(res.body.affected.find((x: { id: string }) => x.id === b).path).toHaveLength(3);
    expect(res.body.truncated).toBe(false);
  });

  it('reads connection directions: a_to_b means a depends on b; b_to_a the reverse; both and none go both ways', async () => {
    const e = await env();
    const [x1, y1, x2, y2, x3, y3, x4, y4] = await Promise.all(
      ['x1', 'y1', 'x2', 'y2', 'x3', 'y3', 'x4', 'y4'].map((n) => e.service(n)),
    );
    await e.connect(S(x1), S(y1), 'a_to_b');
    await e.connect(S(x2), S(y2), 'b_to_a');
    await e.connect(S(x3), S(y3), 'both');
    await e.connect(S(x4), S(y4), 'none');
    const hits = async (id: string) => (await e.blast(S(id))).body.affected.map((a: { id: string }) => a.id);
    expect(await hits(y1)).toEqual([x1]);
    expect(await hits(x1)).toEqual([]);
    expect(await hits(x2)).toEqual([y2]);
    expect(await hits(y2)).toEqual([]);
    expect(await hits(x3)).toEqual([y3]);
    expect(await hits(y3)).toEqual([x3]);
    expect(await hits(x4)).toEqual([y4]);
    expect(await hits(y4)).toEqual([x4]);
  });

  it('leaves out deleted services, and the edges removed with them', async () => {
    const e = await env();
    const [db, app, web] = [await e.service('db'), await e.service('api'), await e.service('web')];
    await e.link(app, db);
    await e.link(web, app);
    await e.connect(S(web), S(db), 'a_to_b');
    await removeService(api, e.owner.token, app);
    expect(distances((await e.blast(S(db))).body)).toEqual({ [web]: 1 });
  });

  it('answers byte-identical 404 Service not found for unknown, foreign and floor ids; viewers may read', async () => {
    const e = await env();
    const svc = await e.service('svc');
    const vm = await e.floor('vm-1');
    const stranger = await signUp(api);
    const unknown = await e.blast(S(randomUUID()), '', stranger.token);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: 'Service not found' });
    expect((await e.blast(S(svc), '', stranger.token)).text).toBe(unknown.text);
    expect((await e.blast(S(randomUUID()))).text).toBe(unknown.text);
    expect((await e.blast(S(vm))).text).toBe(unknown.text);
    expect((await api.get('/services/not-a-uuid/blast-radius', { token: e.owner.token })).status).toBe(422);
    const viewer = await signUp(api);
    await grantRole(api, e.owner.token, e.envId, viewer.id, 'viewer');
    const seen = await e.blast(S(svc), '', viewer.token);
    expect(seen.status).toBe(200);
    expect(seen.body.origin).toEqual({ type: 'service', id: svc, name: 'svc' });
  });
});

describe('GET /service-floors/{floor_id}/blast-radius', () => {
  it('takes down the services hosted on the floor, and what depends on them', async () => {
    const e = await env();
    const vm = await e.floor('vm-1.internal');
    const db = await e.service('db', { service_floor_id: vm });
    const cache = await e.service('cache', { service_floor_id: vm });
    const app = await e.service('api');
    const web = await e.service('web');
    const elsewhere = await e.service('elsewhere');
    await e.link(app, db);
    await e.connect(S(web), S(app), 'a_to_b');
    const res = await e.blast(F(vm));
    expect(res.status, res.text).toBe(200);
    expect(res.body.origin).toEqual({ type: 'floor', id: vm, name: 'vm-1.internal' });
    expect(res.body.affected).toEqual([
      { type: 'service', id: cache, name: 'cache', distance: 1, via: 'hosting', path: [F(vm), S(cache)] },
      { type: 'service', id: db, name: 'db', distance: 1, via: 'hosting', path: [F(vm), S(db)] },
      { type: 'service', id: app, name: 'api', distance: 2, via: 'link', path: [F(vm), S(db), S(app)] },
      { type: 'service', id: web, name: 'web', distance: 3, via: 'connection', path: [F(vm), S(db), S(app), S(web)] },
    ]);
    expect(res.body.counts).toEqual({ services: 4, floors: 0 });
    expect(distances(res.body)[elsewhere]).toBeUndefined();
    // A service failing does not take its floor down.
    expect((await e.blast(S(db))).body.affected.map((a: { id: string }) => a.id)).toEqual([app, web]);
  });

  it('follows floor-to-floor connections (a storage server under an application server)', async () => {
    const e = await env();
    const appServer = await e.floor('app-1');
    const storage = await e.floor('nas-1');
    const svc = await e.service('svc', { service_floor_id: appServer });
    await e.connect(F(appServer), F(storage), 'a_to_b'); // app-1 mounts nas-1
    const res = await e.blast(F(storage));
    expect(res.body.affected).toEqual([
      { type: 'floor', id: appServer, name: 'app-1', distance: 1, via: 'connection', path: [F(storage), F(appServer)] },
      { type: 'service', id: svc, name: 'svc', distance: 2, via: 'hosting', path: [F(storage), F(appServer), S(svc)] },
    ]);
    expect(res.body.counts).toEqual({ services: 1, floors: 1 });
  });

  it('answers byte-identical 404 ServiceFloor not found for unknown, foreign and service ids', async () => {
    const e = await env();
    const vm = await e.floor('vm-1');
    const svc = await e.service('svc');
    const stranger = await signUp(api);
    const unknown = await e.blast(F(randomUUID()));
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: 'ServiceFloor not found' });
    expect((await e.blast(F(vm), '', stranger.token)).text).toBe(unknown.text);
    expect((await e.blast(F(svc))).text).toBe(unknown.text);
    expect((await e.blast(F(randomUUID()), '?max_depth=99')).status).toBe(422);
  });
});

describe('blast radius over many parallel edges', () => {
  it('answers once per neighbour when thousands of stored connections join the same two services', async () => {
    const e = await env();
    const [api1, db, web] = [await e.service('api'), await e.service('db'), await e.service('web')];
    // Written straight to the table (as data stored before duplicates were refused would be); the blast radius reads connection items, not their listings.
    for (let i = 0; i < 4; i++)
      await Promise.all(
        Array.from({ length: 500 }, () =>
          putConnection(e.projectId, e.envId, ['service', api1], ['service', db], null, { listed: false }),
        ),
      );
    await e.connect(S(web), S(api1), 'a_to_b');
    const res = await e.blast(S(db));
    expect(res.status, res.text).toBe(200);
    expect(
      res.body.affected.map((a: { id: string; distance: number; via: string }) => [a.id, a.distance, a.via]),
    ).toEqual([
      [api1, 1, 'connection'],
      [web, 2, 'connection'],
    ]);
    expect(res.body.counts).toEqual({ services: 2, floors: 0 });
    expect(res.body.truncated).toBe(false);
  });
});
