import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { grantRole, projectWithEnv } from '../helpers/tenancy.ts';
import { addEnv, addFloor, addService, connect, link, ownerWithEnv, removeService } from '../helpers/topology.ts';
import { ddb } from '#shared/clients';
import { countCalls, countItemsRead } from '../bench/measure.ts';

/**
 * GET /topology answers an environment's topology (services, servers, networks; connections,
 * links, hosting, attachments) in one compact, columnar answer, for the dashboard's topology screen to
 * read in one request. Refused as GET /services refuses; read from the environment's snapshot
 * (topology-snapshot.test.ts), which is built by one parallel round of Queries of this environment's
 * live items only.
 */

const ref = useTestStack();
const api = client(() => ref.stack.url);

type Topology = {
  project_id: string;
  environment_id: string;
  nodes: {
    kind: string[];
    id: string[];
    name: (string | null)[];
    group: (string | null)[];
    type: (string | null)[];
    cidr: (string | null)[];
  };
  edges: { kind: string[]; source: number[]; target: number[]; direction: (string | null)[]; name: (string | null)[] };
};

/** The answer as readable rows: nodes `kind:name`, edges `kind source→target (direction, name)`. */
function rows(t: Topology) {
  const label = (i: number) => `${t.nodes.kind[i]}:${t.nodes.name[i] ?? t.nodes.type[i]}`;
  return {
    nodes: t.nodes.id.map((_, i) =>
      [label(i), t.nodes.group[i], t.nodes.type[i], t.nodes.cidr[i]].filter((x) => x !== null).join(' '),
    ),
    edges: t.edges.kind.map(
      (kind, i) =>
        `${kind} ${label(t.edges.source[i])} → ${label(t.edges.target[i])}${t.edges.direction[i] ? ` ${t.edges.direction[i]}` : ''}${t.edges.name[i] ? ` "${t.edges.name[i]}"` : ''}`,
    ),
  };
}

async function environment() {
  const { owner, projectId, envId } = await ownerWithEnv(api);
  const token = owner.token;
  const scope = { project_id: projectId, environment_id: envId };
  const read = (query: Record<string, string> = scope, as = token) =>
    api.get<Topology>(`/topology?${new URLSearchParams(query)}`, { token: as });
  return { owner, token, projectId, envId, scope, read };
}

describe('GET /topology', () => {
  it('answers the nodes and edges the screen draws, columnar, in name and creation order; deleted items and their edges left out', async () => {
    const e = await environment();
    const group = await api.post('/groups', { ...e.scope, name: 'backend' }, { token: e.token });
    expect(group.status, group.text).toBe(201);
    const vm = await addFloor(api, e.token, e.projectId, e.envId, 'vm-1.internal');
    const bare = await api.post('/service-floors', { ...e.scope, type: 'container' }, { token: e.token });
    expect(bare.status, bare.text).toBe(201);
    const net = await api.post('/networks', { ...e.scope, name: 'private', cidr: '10.0.0.0/16' }, { token: e.token });
    expect(net.status, net.text).toBe(201);
    const db = await addService(api, e.token, e.projectId, e.envId, 'db', {
      service_floor_id: vm,
      group_id: group.body.id,
    });
    const web = await addService(api, e.token, e.projectId, e.envId, 'web');
    const app = await addService(api, e.token, e.projectId, e.envId, 'api', { group_id: group.body.id });
    const gone = await addService(api, e.token, e.projectId, e.envId, 'gone', { service_floor_id: vm });
    await connect(api, e.token, {
      ...e.scope,
      a_type: 'service',
      a_id: web,
      b_type: 'service',
      b_id: app,
      direction: 'a_to_b',
      name: 'https',
    });
    await connect(api, e.token, {
      ...e.scope,
      a_type: 'service',
      a_id: app,
      b_type: 'floor',
      b_id: bare.body.id,
      direction: 'both',
    });
    await connect(api, e.token, {
      ...e.scope,
      a_type: 'service',
      a_id: gone,
      b_type: 'service',
      b_id: db,
      direction: 'none',
    });
    await link(api, e.token, e.projectId, e.envId, app, db);
    await link(api, e.token, e.projectId, e.envId, gone, app);
    for (const [holder, id] of [
      ['service-floors', vm],
      ['services', app],
    ]) {
      const res = await api.patch(
        `/attachments/${holder}/${id}/networks`,
        { network_ids: [net.body.id] },
        { token: e.token },
      );
      expect(res.status, res.text).toBe(200);
    }
    await removeService(api, e.token, gone);

    const res = await e.read();
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const t = res.body;
    expect({ project_id: t.project_id, environment_id: t.environment_id }).toEqual(e.scope);
    expect(t.nodes.id).toEqual([app, db, web, bare.body.id, vm, net.body.id]);
    expect(rows(t)).toEqual({
      nodes: [
        'service:api backend',
        'service:db backend',
        'service:web',
        'floor:container container',
        'floor:vm-1.internal vm',
        'network:private 10.0.0.0/16',
      ],
      edges: [
        'connection service:web → service:api a_to_b "https"',
        'connection service:api → floor:container both',
        'link service:api → service:db',
        'hosting service:db → floor:vm-1.internal',
        'attachment service:api → network:private',
        'attachment floor:vm-1.internal → network:private',
      ],
    });
    // Every column of a table has one entry per row.
    for (const column of Object.values(t.nodes)) expect(column).toHaveLength(6);
    for (const column of Object.values(t.edges)) expect(column).toHaveLength(6);
  });

  it('asks DynamoDB for live items only: nothing deleted or archived comes back from its Queries', async () => {
    const e = await environment();
    const kept = await addService(api, e.token, e.projectId, e.envId, 'kept');
    const floor = await addFloor(api, e.token, e.projectId, e.envId, 'gone-host');
    for (let i = 0; i < 5; i++) {
      const gone = await addService(api, e.token, e.projectId, e.envId, `gone-${i}`, { service_floor_id: floor });
      await connect(api, e.token, {
        ...e.scope,
        a_type: 'service',
        a_id: kept,
        b_type: 'service',
        b_id: gone,
        direction: 'a_to_b',
      });
      await link(api, e.token, e.projectId, e.envId, kept, gone);
      await removeService(api, e.token, gone);
    }
    const archived = await addService(api, e.token, e.projectId, e.envId, 'archived');
    expect((await api.post('/me/mark-archived', { services: [archived] }, { token: e.token })).status).toBe(200);
    expect((await api.delete(`/service-floors/${floor}`, undefined, { token: e.token })).status).toBe(204);
    // What each Query sent back (after its filter), by the Query's key prefix.
    const returned: Record<string, unknown>[] = [];
    const stack = ddb().middlewareStack;
    stack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName === 'QueryCommand')
          returned.push(...((result.output as { Items?: Record<string, unknown>[] }).Items ?? []));
        return result;
      },
      { step: 'initialize', name: 'topologyItemsReturned' },
    );
    try {
      const res = await e.read();
      expect(res.status, res.text).toBe(200);
      expect(rows(res.body).nodes).toEqual(['service:kept']);
    } finally {
      stack.remove('topologyItemsReturned');
    }
    // Five deleted services, their connections and links, a deleted floor, an archived service: none read back.
    expect(returned.map((i) => i.id)).toEqual([kept]);
  });

  it('answers an empty environment with empty columns', async () => {
    const e = await environment();
    const res = await e.read();
    expect(res.status, res.text).toBe(200);
    expect(res.body.nodes).toEqual({ kind: [], id: [], name: [], group: [], type: [], cidr: [] });
    expect(res.body.edges).toEqual({ kind: [], source: [], target: [], direction: [], name: [] });
  });

  it('is refused as GET /services refuses: 404 for a non-member (byte-identical to an unknown project), 400 for another project’s environment, 422 naming the field, 401 signed out; a viewer reads it', async () => {
    const e = await environment();
    await addService(api, e.token, e.projectId, e.envId, 'svc');
    const stranger = await signUp(api);
    const foreign = await e.read(e.scope, stranger.token);
    const unknown = await e.read({ ...e.scope, project_id: randomUUID() }, stranger.token);
    const services = await api.get(`/services?${new URLSearchParams(e.scope)}`, { token: stranger.token });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ detail: 'Project not found' });
    expect(unknown.text).toBe(foreign.text);
    expect(services.text).toBe(foreign.text);

    const other = await projectWithEnv(api, e.token);
    const elsewhere = await e.read({ ...e.scope, environment_id: other.envId });
    const elsewhereServices = await api.get(
      `/services?${new URLSearchParams({ ...e.scope, environment_id: other.envId })}`,
      { token: e.token },
    );
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.text).toBe(elsewhereServices.text);

    const bad = await e.read({ project_id: e.projectId, environment_id: 'not-a-uuid' });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('environment_id');
    const missing = await e.read({ environment_id: e.envId });
    expect(missing.status).toBe(422);
    expect(missing.text).toContain('project_id');
    expect((await api.get(`/topology?${new URLSearchParams(e.scope)}`)).status).toBe(401);

    const viewer = await signUp(api);
    await grantRole(api, e.token, e.envId, viewer.id, 'viewer');
    const seen = await e.read(e.scope, viewer.token);
    expect(seen.status, seen.text).toBe(200);
    expect(seen.body.nodes.name).toEqual(['svc']);
  });

  it('reads the environment’s own snapshot (its head with the access, then its buckets: no Query, no Scan), however big the project’s other environments are', async () => {
    const e = await environment();
    const crowdedEnv = await addEnv(api, e.token, e.projectId);
    const services = async (envId: string, n: number) => {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) ids.push(await addService(api, e.token, e.projectId, envId, `s-${i}`));
      for (let i = 1; i < n; i++)
        await connect(api, e.token, {
          project_id: e.projectId,
          environment_id: envId,
          a_type: 'service',
          a_id: ids[i - 1],
          b_type: 'service',
          b_id: ids[i],
          direction: 'a_to_b',
        });
      return ids;
    };
    await services(e.envId, 4);
    await services(crowdedEnv, 30);
    const calls = countCalls(ddb());
    const read = countItemsRead(ddb());
    const cost = async (envId: string) => {
      // The stream has settled (its first read built the snapshot): what a read of it costs.
      expect((await e.read({ project_id: e.projectId, environment_id: envId })).status).toBe(200);
      calls.reset();
      read.reset();
      // Asked uncompressed: not an answer the process already keeps (functions/topology/recent-answers.ts).
      const res = await api.get<Topology>(
        `/topology?${new URLSearchParams({ project_id: e.projectId, environment_id: envId })}`,
        { token: e.token, headers: { 'accept-encoding': 'identity' } },
      );
      expect(res.status, res.text).toBe(200);
      return {
        calls: calls.byCommand(),
        items: read.total(),
        nodes: res.body.nodes.id.length,
        edges: res.body.edges.kind.length,
      };
    };
    const quiet = await cost(e.envId);
    const crowded = await cost(crowdedEnv);
    console.log(
      `GET /topology: 4 services, 3 connections: ${JSON.stringify(quiet)}; 30 services, 29 connections: ${JSON.stringify(crowded)}`,
    );
    expect(quiet).toMatchObject({ nodes: 4, edges: 3 });
    expect(crowded).toMatchObject({ nodes: 30, edges: 29 });
    // The sign-in's BatchGet, the access's (with the snapshot's head), then the snapshot's buckets.
    for (const c of [quiet, crowded]) expect(c.calls).toEqual({ BatchGetItemCommand: 3 });
    // Items read: those few (account, session, project, membership, environment), the head, the one bucket
    // of so small an environment: the other environment's size does not count.
    expect(quiet.items).toBe(5 + 1 + 1);
    expect(crowded.items).toBe(5 + 1 + 1);
  }, 60_000);
});
