import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/clients';
import { keys } from '#db/keys';
import { computeBlastRadius, impactGraph, type Topology } from '#domain/catalog';
import { rawPrefix } from './measure.ts';

/**
 * `SCALE_BLAST_EDGES=6000,100000 npm run bench:scale`: only what a hub's blast radius
 * needs, per edge count E: E/3 services written by raw BatchWrite into a fresh environment, each
 * connected (a_to_b: it depends on them) to the next two and to the hub (service 0), as the full
 * bench's environment. Then the route (median of 3), the same four Queries raw (what the route
 * reads, projected as it is), and the in-memory steps on the items read: the graph's build (with its
 * neighbour sorts), the walk and the answer's sort, each per 1,000 edges.
 */

type Invoke = (
  group: 'services' | 'topology' | 'projects' | 'environments',
  method: string,
  url: string,
  routeKey: string,
  init?: { body?: unknown; token?: string; params?: Record<string, string> },
) => Promise<{ status: number; body: any }>;
type Measure = (fn: () => Promise<unknown>, runs?: number) => Promise<{ ms: number; read: number }>;

const IN_FLIGHT = 4;

async function batchWrite(TableName: string, items: Record<string, unknown>[]) {
  const requests: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25)
    requests.push(items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })));
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < requests.length)
        await ddb().send(new BatchWriteCommand({ RequestItems: { [TableName]: requests[next++] as never } }));
    }),
  );
}

/** Every page of one Query, as the route's `queryPrefix` reads it (projected, consistent). */
async function rawQuery(TableName: string, pk: string, prefix: string, projection: string[]) {
  const names = Object.fromEntries(projection.map((p, i) => [`#p${i}`, p]));
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  let pages = 0;
  do {
    const out = await ddb().send(
      new QueryCommand({
        TableName,
        ...rawPrefix(pk, prefix),
        ProjectionExpression: Object.keys(names).join(', '),
        ExpressionAttributeNames: names,
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    items.push(...(out.Items ?? []));
    ExclusiveStartKey = out.LastEvaluatedKey;
    pages++;
  } while (ExclusiveStartKey);
  return { items, pages };
}

const timed = <T>(fn: () => T): [T, number] => {
  const t = performance.now();
  const out = fn();
  return [out, performance.now() - t];
};
const timedAsync = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
  const t = performance.now();
  const out = await fn();
  return [out, performance.now() - t];
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const perK = (ms: number, edges: number) => `${((ms / edges) * 1000).toFixed(1)} ms per 1,000 edges`;

/** The DynamoDB requests of a route call, by command: when each started and ended (where the route's time goes). */
const readsSeen: { name: string; start: number; end: number }[] = [];
let watching = false;
function watchRequests() {
  if (watching) return;
  watching = true;
  ddb().middlewareStack.add(
    (next, context) => async (args) => {
      const start = performance.now();
      const out = await next(args);
      readsSeen.push({ name: String(context.commandName), start, end: performance.now() });
      return out;
    },
    { step: 'initialize', name: 'benchBlastTimeline' },
  );
}

export async function blastRadiusBench(opts: {
  edgeCounts: number[];
  TableName: string;
  signIn: () => Promise<string>;
  invoke: Invoke;
  measure: Measure;
}) {
  const { TableName, invoke, measure } = opts;
  let token = await opts.signIn();
  watchRequests();
  const rows: string[] = [];
  for (const edges of opts.edgeCounts) {
    const n = Math.round(edges / 3);
    console.log(
      `\n== blast radius: ${n.toLocaleString('en')} services, ${(3 * n).toLocaleString('en')} connections (raw BatchWrite)`,
    );
    token = await opts.signIn();
    const project = await invoke('projects', 'POST', '/projects', 'POST /projects', {
      token,
      body: { name: `blast-${edges}` },
    });
    const env = await invoke('environments', 'POST', '/environments', 'POST /environments', {
      token,
      body: { name: 'hub', project_id: project.body.id },
    });
    const [projectId, envId] = [project.body.id as string, env.body.id as string];
    // The hub through the API (its id lookup, so the route finds it); the others raw.
    const hub = await invoke('services', 'POST', '/services', 'POST /services', {
      token,
      body: { project_id: projectId, environment_id: envId, name: 'svc-00000' },
    });
    if (hub.status !== 201) throw new Error(`hub: ${hub.status}`);
    const now = new Date().toISOString();
    const ids = [hub.body.id as string, ...Array.from({ length: n - 1 }, () => crypto.randomUUID())];
    const base = { project_id: projectId, environment_id: envId, created_at: now, updated_at: now, deleted_at: null };
    const services = ids.slice(1).map((id, k) => ({
      ...keys.service(projectId, envId, id),
      ...base,
      id,
      name: `svc-${String(k + 1).padStart(5, '0')}`,
      service_floor_id: null,
    }));
    const connections = Array.from({ length: 3 * n }, (_, k) => {
      const i = Math.floor(k / 3);
      const j = k % 3 === 2 ? (i >= 3 && i <= n - 3 ? 0 : Math.floor(n / 2)) : (i + 1 + (k % 3)) % n;
      const id = crypto.randomUUID();
      return {
        ...keys.connection(projectId, envId, id),
        ...base,
        id,
        a_type: 'service',
        a_id: ids[i],
        b_type: 'service',
        b_id: ids[j],
        direction: 'a_to_b',
        chain_id: null,
        position: 0,
      };
    }).filter((c) => c.a_id !== c.b_id);
    const t = performance.now();
    await batchWrite(TableName, [...services, ...connections]);
    console.log(
      `written: ${(services.length + connections.length).toLocaleString('en')} items in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );

    token = await opts.signIn(); // the writes of a big size outlast an access token
    let affected = 0;
    const callRoute = async () => {
      readsSeen.length = 0;
      const r = await invoke(
        'topology',
        'GET',
        `/services/${ids[0]}/blast-radius`,
        'GET /services/{service_id}/blast-radius',
        { token, params: { service_id: ids[0] } },
      );
      if (r.status !== 200) throw new Error(`blast radius: ${r.status}`);
      affected = r.body.affected.length;
    };
    // The same reads raw (the route's four Queries, projected as it projects them, in parallel), and the in-memory steps on them.
    const pk = keys.projectPK(projectId);
    const live = ['deleted_at', 'archived_at'];
    let topology: Topology | undefined;
    let pages = 0;
    const readRaw = async () => {
      const [s, f, c, l] = await Promise.all([
        rawQuery(TableName, pk, keys.servicePrefix(envId), ['id', 'name', 'service_floor_id', ...live]),
        rawQuery(TableName, pk, keys.floorPrefix(envId), ['id', 'hostname', ...live]),
        rawQuery(TableName, pk, keys.connectionPrefix(envId), [
          'a_type',
          'a_id',
          'b_type',
          'b_id',
          'direction',
          'deleted_at',
        ]),
        rawQuery(TableName, pk, keys.linkPrefix(envId), ['from_service_id', 'to_service_id', 'deleted_at']),
      ]);
      topology = { services: s.items, floors: f.items, connections: c.items, links: l.items } as unknown as Topology;
      pages = s.pages + c.pages;
    };
    // Items read by the route (measure: its reads counted), then route and raw alternately, so that
    // the machine's load (and DynamoDB Local's own state) falls on both alike.
    const { read } = await measure(callRoute, 1);
    const routes: number[] = [];
    const raws: number[] = [];
    const timelines: string[] = [];
    for (let run = 0; run < 3; run++) {
      const t0 = performance.now();
      routes.push((await timedAsync(callRoute))[1]);
      const queries = readsSeen.filter((r) => r.name === 'QueryCommand');
      const [first, last] = [Math.min(...queries.map((q) => q.start)), Math.max(...queries.map((q) => q.end))];
      timelines.push(
        `before the topology's Queries ${(first - t0).toFixed(0)} ms, Queries ${(last - first).toFixed(0)} ms (${queries.length} pages), after ${(t0 + routes.at(-1)! - last).toFixed(0)} ms`,
      );
      raws.push((await timedAsync(readRaw))[1]);
    }
    console.log(`route timeline: ${timelines.join('; ')}`);
    const [, graphMs] = timed(() => impactGraph(topology!));
    const [answer, computeMs] = timed(() => computeBlastRadius(topology!, { type: 'service', id: ids[0] }, 10));
    const [, jsonMs] = timed(() => JSON.stringify(answer));
    const e = connections.length;
    const rawMs = median(raws);
    const route = { ms: median(routes), read };
    const line = `${e.toLocaleString('en')} edges: route ${route.ms.toFixed(0)} ms (${perK(route.ms, e)}, ${(route.read / e).toFixed(2)} items read per edge, ${affected.toLocaleString('en')} affected); raw Queries ${rawMs.toFixed(0)} ms (${perK(rawMs, e)}, ${pages} pages); graph build ${graphMs.toFixed(0)} ms, whole computation ${computeMs.toFixed(0)} ms (${perK(computeMs, e)}), JSON ${jsonMs.toFixed(0)} ms`;
    console.log(line);
    rows.push(line);
  }
  console.log(`\n${rows.join('\n')}`);
}
