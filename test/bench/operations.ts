import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { apiEvent, lambdaContext } from '../../infra/local/api-event.ts';
import { routeTable } from '../../functions/route-table.ts';
import { httpHandler } from '#http/pipeline';
import { setPlan } from '../helpers/plans.ts';
import type { countCalls } from './measure.ts';

/**
 * Every operation a user reaches often, against the DynamoDB calls it needs. Each
 * operation states its raw calls, round trip by round trip (the calls sent together in one round trip,
 * then the next round trip's): what a hand-written client of the table would have to send for the same
 * answer. Its handler is called in this process as API Gateway would (a warm container: the first call
 * of a kind, which reads the signing key and the plan catalogue, is made before the counted one), and
 * what it sent is counted by the SDK middleware of `countCalls` (measure.ts): the calls, and the
 * sequential round trips (calls that overlap count as one). An operation is within budget when its
 * calls are at most 1.2x the calls it needs and its round trips at most those it needs; a keyed POST
 * (`Idempotency-Key`) at most one round trip more than the same POST without a key.
 */
export interface OperationRow {
  operation: string;
  calls: number;
  roundTrips: number;
  neededCalls: number;
  neededRoundTrips: number;
  byCommand: Record<string, number>;
  ok: boolean;
  why?: string;
}

/** The raw calls an operation needs: one array per sequential round trip, each naming the calls sent together in it. */
type Needs = string[][];

/** A blast radius's graph: the environment's services, floors, connections and links, read beside the access. */
const GRAPH = ['Query (services)', 'Query (floors)', 'Query (connections)', 'Query (links)'];
/** A read: the token check, then at most two round trips. */
const READ_ROUND_TRIPS = 3;
/** The token check every signed-in request starts with: account and session, one BatchGet. */
const TOKEN = ['BatchGetItem (account, session)'];

type Invoke = (
  group: keyof typeof routeTable,
  method: string,
  url: string,
  routeKey: string,
  init?: { body?: unknown; token?: string; params?: Record<string, string>; headers?: Record<string, string> },
) => Promise<{ status: number; body: any }>;

const handlers = new Map<string, ReturnType<typeof httpHandler>>();
const invoke: Invoke = async (group, method, url, routeKey, init = {}) => {
  if (!handlers.has(group)) handlers.set(group, httpHandler(routeTable[group]));
  const event = apiEvent({
    method,
    url,
    routeKey,
    pathParameters: init.params,
    headers: {
      'content-type': 'application/json',
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const res = (await handlers.get(group)!(event, lambdaContext('bench', 'bench'))) as APIGatewayProxyStructuredResultV2;
  return { status: res.statusCode ?? 0, body: res.body ? JSON.parse(res.body) : undefined };
};

/** Calls `fn` and answers what it sent; fails when the answer is not `status`. */
async function counted(
  calls: ReturnType<typeof countCalls>,
  name: string,
  status: number,
  fn: () => ReturnType<Invoke>,
) {
  calls.reset();
  const res = await fn();
  if (res.status !== status)
    throw new Error(`${name} answered ${res.status}, not ${status}: ${JSON.stringify(res.body)}`);
  return { calls: calls.total(), roundTrips: calls.roundTrips(), byCommand: calls.byCommand(), body: res.body };
}

export async function operationBudgets(calls: ReturnType<typeof countCalls>): Promise<OperationRow[]> {
  const rows: OperationRow[] = [];
  const email = `bench-ops-${randomUUID()}@example.com`;
  const password = 'correct horse battery';
  await invoke('auth', 'POST', '/auth/register', 'POST /auth/register', { body: { email, password } });
  const first = await invoke('auth', 'POST', '/auth/login', 'POST /auth/login', { body: { email, password } });
  const token = first.body.access_token as string;
  const { sub } = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { sub: string };
  await setPlan(sub, 'Enterprise+');

  const measure = async (operation: string, needs: Needs, status: number, fn: () => ReturnType<Invoke>) => {
    const m = await counted(calls, operation, status, fn);
    const neededCalls = needs.flat().length;
    const neededRoundTrips = needs.length;
    const over = [
      m.calls > 1.2 * neededCalls ? `${m.calls} calls > 1.2 x ${neededCalls}` : '',
      m.roundTrips > neededRoundTrips ? `${m.roundTrips} round trips > ${neededRoundTrips}` : '',
      // SPEC's rule for reads, whatever a read's needs say: at most two round trips after the token check.
      operation.startsWith('GET ') && m.roundTrips > READ_ROUND_TRIPS
        ? `a read of ${m.roundTrips} round trips > ${READ_ROUND_TRIPS}`
        : '',
    ]
      .filter(Boolean)
      .join('; ');
    rows.push({
      operation,
      calls: m.calls,
      roundTrips: m.roundTrips,
      neededCalls,
      neededRoundTrips,
      byCommand: m.byCommand,
      ok: !over,
      ...(over ? { why: over } : {}),
    });
    return m.body;
  };
  const t = { token };
  const uuid = () => randomUUID();

  // Sign-in and token refresh (public routes: no token check).
  const login = await measure(
    'POST /auth/login',
    [
      ["UpdateItem (the address's rate-limit window: before anything is read)"],
      ["GetItem (the e-mail's account id)", "GetItem (the e-mail's failed attempts)"],
      ['GetItem (the account)'],
      ['TransactWriteItems (last login, security-log entry, session)'],
    ],
    200,
    () => invoke('auth', 'POST', '/auth/login', 'POST /auth/login', { body: { email, password } }),
  );
  await measure(
    'POST /auth/token/refresh',
    [
      ["BatchGetItem (account, the refresh token's session)"],
      ['UpdateItem (the session rotated, on condition of the hash read)'],
    ],
    200,
    () =>
      invoke('auth', 'POST', '/auth/token/refresh', 'POST /auth/token/refresh', {
        body: { refresh_token: login.refresh_token },
      }),
  );

  // Projects: the caller's list (its memberships, then the projects), create, settings, delete.
  const proj = (name: string) => invoke('projects', 'POST', '/projects', 'POST /projects', { ...t, body: { name } });
  await proj('bench-warm');
  const project = await measure(
    'POST /projects',
    [
      TOKEN,
      ["Query (the owner's subscriptions: the plan's limit)"],
      ['TransactWriteItems (project, membership, name, counter, audit)'],
    ],
    201,
    () => proj('bench-ops'),
  );
  const projectId = project.id as string;
  await measure(
    'GET /projects',
    [TOKEN, ["Query (the caller's memberships)"], ['BatchGetItem (the projects)']],
    200,
    () => invoke('projects', 'GET', '/projects', 'GET /projects', t),
  );
  await measure(
    'PATCH /projects/{id}/settings',
    [
      TOKEN,
      ['BatchGetItem (project, membership)'],
      ["Query (the owner's subscriptions: the plan's features)"],
      ['TransactWriteItems (project, audit)'],
    ],
    200,
    () =>
      invoke('projects', 'PATCH', `/projects/${projectId}/settings`, 'PATCH /projects/{project_id}/settings', {
        ...t,
        params: { project_id: projectId },
        body: { cost_calc_enabled: true },
      }),
  );
  const doomed = (await proj('bench-doomed')).body.id as string;
  await measure(
    'DELETE /projects/{id}',
    [
      TOKEN,
      ['BatchGetItem (project, membership)'],
      ['TransactWriteItems (project deleted, name released, counter, audit)'],
    ],
    204,
    () =>
      invoke('projects', 'DELETE', `/projects/${doomed}`, 'DELETE /projects/{project_id}', {
        ...t,
        params: { project_id: doomed },
      }),
  );

  // Environments.
  const env = (name: string) =>
    invoke('environments', 'POST', '/environments', 'POST /environments', {
      ...t,
      body: { name, project_id: projectId },
    });
  await env('warm');
  const environment = await measure(
    'POST /environments',
    [
      TOKEN,
      ['BatchGetItem (project, membership)'],
      ["Query (the owner's subscriptions: the plan's limit)"],
      ['TransactWriteItems (environment, name, counter, audit)'],
    ],
    201,
    () => env('prod'),
  );
  const envId = environment.id as string;
  await measure(
    'GET /environments',
    [TOKEN, ['BatchGetItem (project, membership)'], ["Query (the project's environments)"]],
    200,
    () => invoke('environments', 'GET', `/environments?project_id=${projectId}`, 'GET /environments', t),
  );
  await measure(
    'PATCH /environments/{id}',
    [
      TOKEN,
      ['GetItem (locate the id)'],
      ['BatchGetItem (project, membership, environment)'],
      ['TransactWriteItems (environment, names, audit)'],
    ],
    200,
    () =>
      invoke('environments', 'PATCH', `/environments/${envId}`, 'PATCH /environments/{environment_id}', {
        ...t,
        params: { environment_id: envId },
        body: { name: 'production' },
      }),
  );
  const doomedEnv = (await env('doomed')).body.id as string;
  await measure(
    'DELETE /environments/{id}',
    [
      TOKEN,
      ['GetItem (locate the id)'],
      ['BatchGetItem (project, membership, environment)'],
      ['TransactWriteItems (environment deleted, name released, counter, audit)'],
    ],
    204,
    () =>
      invoke('environments', 'DELETE', `/environments/${doomedEnv}`, 'DELETE /environments/{environment_id}', {
        ...t,
        params: { environment_id: doomedEnv },
      }),
  );

  const scope = { project_id: projectId, environment_id: envId };
  const q = `project_id=${projectId}&environment_id=${envId}`;
  /** A route in an environment: token check, then access (project, membership, role, environment) beside what it reads. */
  const access = 'BatchGetItem (project, membership, role, environment)';
  /** A route on an item by its id: token check, locate the id, then access and the item in one BatchGet. */
  const byId = (what: string) => [
    TOKEN,
    ['GetItem (locate the id)'],
    [`BatchGetItem (project, membership, role, environment, ${what})`],
  ];

  // Groups and subgroups.
  const group = (name: string) =>
    invoke('structure', 'POST', '/groups', 'POST /groups', { ...t, body: { ...scope, name } });
  await group('warm');
  const g = await measure(
    'POST /groups',
    [TOKEN, [access], ['TransactWriteItems (group, name, listing, audit)']],
    201,
    () => group('backend'),
  );
  await measure('GET /groups', [TOKEN, [access], ['Query (the groups)']], 200, () =>
    invoke('structure', 'GET', `/groups?${q}`, 'GET /groups', t),
  );
  await measure(
    'PATCH /groups/{id}',
    [...byId('group'), ['TransactWriteItems (group, names, listing, audit)']],
    200,
    () =>
      invoke('structure', 'PATCH', `/groups/${g.id}`, 'PATCH /groups/{group_id}', {
        ...t,
        params: { group_id: g.id },
        body: { description: 'the back end' },
      }),
  );
  const subgroup = (name: string) =>
    invoke('structure', 'POST', '/subgroups', 'POST /subgroups', { ...t, body: { ...scope, group_id: g.id, name } });
  await subgroup('warm');
  const sg = await measure(
    'POST /subgroups',
    [TOKEN, [`${access.slice(0, -1)}, group)`], ['TransactWriteItems (subgroup, name, listing, audit)']],
    201,
    () => subgroup('api'),
  );
  await measure('GET /subgroups', [TOKEN, [access], ['Query (the subgroups)']], 200, () =>
    invoke('structure', 'GET', `/subgroups?${q}`, 'GET /subgroups', t),
  );
  await measure(
    'PATCH /subgroups/{id}',
    [...byId('subgroup'), ['TransactWriteItems (subgroup, names, listing, audit)']],
    200,
    () =>
      invoke('structure', 'PATCH', `/subgroups/${sg.id}`, 'PATCH /subgroups/{subgroup_id}', {
        ...t,
        params: { subgroup_id: sg.id },
        body: { description: 'the API' },
      }),
  );
  const doomedSub = (await subgroup('doomed')).body.id as string;
  await measure(
    'DELETE /subgroups/{id}',
    [...byId('subgroup'), ['TransactWriteItems (subgroup deleted, name released, listing, audit)']],
    204,
    () =>
      invoke('structure', 'DELETE', `/subgroups/${doomedSub}`, 'DELETE /subgroups/{subgroup_id}', {
        ...t,
        params: { subgroup_id: doomedSub },
      }),
  );
  const doomedGroup = (await group('doomed')).body.id as string;
  await measure(
    'DELETE /groups/{id}',
    [
      ...byId('group'),
      ['Query (its subgroups)'],
      ['TransactWriteItems (group and subgroups deleted, names released, listings, audit)'],
    ],
    204,
    () =>
      invoke('structure', 'DELETE', `/groups/${doomedGroup}`, 'DELETE /groups/{group_id}', {
        ...t,
        params: { group_id: doomedGroup },
      }),
  );

  // Service floors.
  const floor = (hostname: string) =>
    invoke('floors', 'POST', '/service-floors', 'POST /service-floors', {
      ...t,
      body: { ...scope, type: 'vm', hostname },
    });
  await floor('warm');
  const f = await measure(
    'POST /service-floors',
    [
      TOKEN,
      [access, "Query (the project's custom field definitions: defaults and checks)"],
      ['TransactWriteItems (floor, listing, counter, audit, event)'],
    ],
    201,
    () => floor('host-1'),
  );
  await measure(
    'GET /service-floors',
    [TOKEN, [access, "Query (the floors' listing)"], ['BatchGetItem (the listed floors)']],
    200,
    () => invoke('floors', 'GET', `/service-floors?${q}`, 'GET /service-floors', t),
  );
  await measure('GET /service-floors/{id}', byId('floor'), 200, () =>
    invoke('floors', 'GET', `/service-floors/${f.id}`, 'GET /service-floors/{floor_id}', {
      ...t,
      params: { floor_id: f.id },
    }),
  );
  await measure(
    'PATCH /service-floors/{id}',
    [...byId('floor'), ['TransactWriteItems (floor, listing, audit, event)']],
    200,
    () =>
      invoke('floors', 'PATCH', `/service-floors/${f.id}`, 'PATCH /service-floors/{floor_id}', {
        ...t,
        params: { floor_id: f.id },
        body: { cpu: 4 },
      }),
  );

  // Networks.
  const network = (name: string, cidr: string) =>
    invoke('networks', 'POST', '/networks', 'POST /networks', { ...t, body: { ...scope, name, cidr } });
  await network('warm', '10.9.0.0/16');
  const n = await measure(
    'POST /networks',
    [
      TOKEN,
      [access, "Query (the project's custom field definitions: defaults and checks)"],
      ['TransactWriteItems (network, name, listing, counter, audit)'],
    ],
    201,
    () => network('core', '10.0.0.0/16'),
  );
  await measure(
    'GET /networks',
    [TOKEN, [access, "Query (the networks' listing)"], ['BatchGetItem (the listed networks)']],
    200,
    () => invoke('networks', 'GET', `/networks?${q}`, 'GET /networks', t),
  );
  await measure('GET /networks/{id}', byId('network'), 200, () =>
    invoke('networks', 'GET', `/networks/${n.id}`, 'GET /networks/{network_id}', {
      ...t,
      params: { network_id: n.id },
    }),
  );
  await measure(
    'PATCH /networks/{id}',
    [...byId('network'), ['TransactWriteItems (network, listing, audit)']],
    200,
    () =>
      invoke('networks', 'PATCH', `/networks/${n.id}`, 'PATCH /networks/{network_id}', {
        ...t,
        params: { network_id: n.id },
        body: { is_private: false },
      }),
  );
  const doomedNet = (await network('doomed', '10.8.0.0/16')).body.id as string;
  await measure(
    'DELETE /networks/{id}',
    [...byId('network'), ['TransactWriteItems (network deleted, name released, listing, counter, audit)']],
    204,
    () =>
      invoke('networks', 'DELETE', `/networks/${doomedNet}`, 'DELETE /networks/{network_id}', {
        ...t,
        params: { network_id: doomedNet },
      }),
  );

  // Services, with a keyed POST beside the same POST without a key.
  const serviceBody = (name: string) => ({
    ...scope,
    name,
    port: 8080,
    tags: ['bench'],
    provider: 'aws',
    service_floor_id: f.id,
    group_id: g.id,
  });
  const service = (name: string, headers?: Record<string, string>) =>
    invoke('services', 'POST', '/services', 'POST /services', { ...t, body: serviceBody(name), headers });
  await service('warm');
  const createNeeds = [
    TOKEN,
    [`${access.slice(0, -1)}, floor, group)`, "Query (the project's custom field definitions: defaults and checks)"],
    ["Query (the owner's subscriptions: the plan's limit)"],
    ['TransactWriteItems (service, name, listing, counter, references, audit, event)'],
  ];
  const s = await measure('POST /services', createNeeds, 201, () => service('api'));
  await service('warm-keyed', { 'idempotency-key': uuid() });
  await measure(
    'POST /services (Idempotency-Key)',
    [
      TOKEN,
      [...createNeeds[1], "PutItem (the key's claim)"],
      createNeeds[2],
      createNeeds[3],
      ['UpdateItem (the answer kept)'],
    ],
    201,
    () => service('api-keyed', { 'idempotency-key': uuid() }),
  );
  await measure(
    'GET /services',
    [
      TOKEN,
      [access, "Query (the services' listing)"],
      ['BatchGetItem (the services and the floors and groups they name)'],
    ],
    200,
    () => invoke('services', 'GET', `/services?${q}`, 'GET /services', t),
  );
  await measure('GET /services/{id}', byId('service, its floor'), 200, () =>
    invoke('services', 'GET', `/services/${s.id}`, 'GET /services/{service_id}', {
      ...t,
      params: { service_id: s.id },
    }),
  );
  await measure(
    'PATCH /services/{id}',
    [...byId('service, its floor'), ['TransactWriteItems (service, listing, audit, event)']],
    200,
    () =>
      invoke('services', 'PATCH', `/services/${s.id}`, 'PATCH /services/{service_id}', {
        ...t,
        params: { service_id: s.id },
        body: { port: 9090 },
      }),
  );

  // A rename writes the index entries it moves (those of the old name deleted, the new name's put) in the same transaction.
  await measure(
    'PATCH /services/{id} (rename)',
    [...byId('service, its floor'), ['TransactWriteItems (service, listing, search entries, audit, event)']],
    200,
    () =>
      invoke('services', 'PATCH', `/services/${s.id}`, 'PATCH /services/{service_id}', {
        ...t,
        params: { service_id: s.id },
        body: { name: 'api-renamed' },
      }),
  );
  // Search: the access (with the environments and the caller's roles) beside the index's ranges, then the results.
  const projectAccess = [
    'BatchGetItem (project, membership)',
    'Query (the environments)',
    "Query (the caller's roles)",
  ];
  await measure(
    'GET /search',
    [
      TOKEN,
      [...projectAccess, 'Query (exact and longer terms)', 'Query (inside tokens)'],
      ['BatchGetItem (the results)'],
    ],
    200,
    () => invoke('services', 'GET', `/search?project_id=${projectId}&q=api`, 'GET /search', t),
  );
  await measure(
    'GET /search (an address)',
    [
      TOKEN,
      [
        ...projectAccess,
        'Query (the address as a term)',
        'Query (networks /0-7)',
        'Query (/8-15)',
        'Query (/16-23)',
        'Query (/24-32)',
      ],
      ['BatchGetItem (the results)'],
    ],
    200,
    () => invoke('services', 'GET', `/search?project_id=${projectId}&q=10.8.1.1`, 'GET /search', t),
  );

  // Connections and links.
  const s2 = (await service('worker')).body;
  const s3 = (await service('db')).body;
  const connect = (a: string, b: string) =>
    invoke('topology', 'POST', '/service-connections', 'POST /service-connections', {
      ...t,
      body: { ...scope, a_type: 'service', a_id: a, b_type: 'service', b_id: b },
    });
  await connect(s2.id, s3.id);
  const c = await measure(
    'POST /service-connections',
    [
      TOKEN,
      [`${access.slice(0, -1)}, both ends)`],
      ["Query (end a's connection listings)", "Query (end b's: the duplicate check)"],
      ["TransactWriteItems (connection, listings, the environment's connection version, counter, audit)"],
    ],
    201,
    () => connect(s.id, s2.id),
  );
  await measure(
    'GET /service-connections',
    [TOKEN, [access, "Query (the connections' listing)"], ['BatchGetItem (the listed connections)']],
    200,
    () => invoke('topology', 'GET', `/service-connections?${q}`, 'GET /service-connections', t),
  );
  await measure(
    'PATCH /service-connections/{id}',
    [
      ...byId('connection'),
      ["Query (end a's connection listings)", "Query (end b's: the duplicate check of the new direction)"],
      ['BatchGetItem (the connections joining both ends)'],
      ["TransactWriteItems (connection, the environment's connection version, audit)"],
    ],
    200,
    () =>
      invoke('topology', 'PATCH', `/service-connections/${c.id}`, 'PATCH /service-connections/{connection_id}', {
        ...t,
        params: { connection_id: c.id },
        body: { direction: 'a_to_b' },
      }),
  );
  const link = (from: string, to: string) =>
    invoke('topology', 'POST', '/service-links', 'POST /service-links', {
      ...t,
      body: { ...scope, from_service_id: from, to_service_id: to },
    });
  await link(s2.id, s3.id);
  const l = await measure(
    'POST /service-links',
    [TOKEN, [`${access.slice(0, -1)}, both services)`], ["TransactWriteItems (link, its services' references, audit)"]],
    201,
    () => link(s.id, s3.id),
  );
  await measure('GET /service-links', [TOKEN, [access], ['Query (the links)']], 200, () =>
    invoke('topology', 'GET', `/service-links?${q}`, 'GET /service-links', t),
  );
  // The first read after the writes above lets the snapshot's keeper catch up (locally, before a read); then
  // an open reads the snapshot: its head beside the access, then its buckets.
  await invoke('topology', 'GET', `/topology?${q}`, 'GET /topology', t);
  await measure(
    'GET /topology',
    [TOKEN, [`${access.slice(0, -1)}, the snapshot's head)`], ["BatchGetItem (the snapshot's buckets)"]],
    200,
    () => invoke('topology', 'GET', `/topology?${q}`, 'GET /topology', t),
  );
  await measure(
    'GET /services/{id}/blast-radius',
    [TOKEN, ['GetItem (locate the id)'], [`BatchGetItem (project, membership, role, environment, service)`, ...GRAPH]],
    200,
    () =>
      invoke('topology', 'GET', `/services/${s3.id}/blast-radius`, 'GET /services/{service_id}/blast-radius', {
        ...t,
        params: { service_id: s3.id },
      }),
  );
  await measure(
    'GET /service-floors/{id}/blast-radius',
    [TOKEN, ['GetItem (locate the id)'], [`BatchGetItem (project, membership, role, environment, floor)`, ...GRAPH]],
    200,
    () =>
      invoke('topology', 'GET', `/service-floors/${f.id}/blast-radius`, 'GET /service-floors/{floor_id}/blast-radius', {
        ...t,
        params: { floor_id: f.id },
      }),
  );
  await measure(
    'DELETE /service-links/{id}',
    [...byId('link'), ['TransactWriteItems (link deleted, references, audit)']],
    204,
    () =>
      invoke('topology', 'DELETE', `/service-links/${l.id}`, 'DELETE /service-links/{link_id}', {
        ...t,
        params: { link_id: l.id },
      }),
  );
  await measure(
    'DELETE /service-connections/{id}',
    [...byId('connection'), ['TransactWriteItems (connection deleted, references, counter, audit)']],
    204,
    () =>
      invoke('topology', 'DELETE', `/service-connections/${c.id}`, 'DELETE /service-connections/{connection_id}', {
        ...t,
        params: { connection_id: c.id },
      }),
  );

  // Deletes of what holds references last.
  const doomedService = (await service('doomed')).body.id as string;
  await measure(
    'DELETE /services/{id}',
    [
      ...byId('service'),
      ['Query (its connection listings)', 'Query (its links)'],
      ['TransactWriteItems (service and what joins it deleted, name released, listing, counter, audit, event)'],
    ],
    204,
    () =>
      invoke('services', 'DELETE', `/services/${doomedService}`, 'DELETE /services/{service_id}', {
        ...t,
        params: { service_id: doomedService },
      }),
  );
  const doomedFloor = (await floor('doomed')).body.id as string;
  await measure(
    'DELETE /service-floors/{id}',
    [
      ...byId('floor'),
      ['Query (its connection listings)', 'Query (its hosted services)'],
      ['TransactWriteItems (floor and what joins it deleted, listing, counter, audit, event)'],
    ],
    204,
    () =>
      invoke('floors', 'DELETE', `/service-floors/${doomedFloor}`, 'DELETE /service-floors/{floor_id}', {
        ...t,
        params: { floor_id: doomedFloor },
      }),
  );

  // A keyed POST costs at most one round trip more than the same POST without a key.
  const plain = rows.find((r) => r.operation === 'POST /services')!;
  const keyed = rows.find((r) => r.operation === 'POST /services (Idempotency-Key)')!;
  if (keyed.roundTrips > plain.roundTrips + 1)
    Object.assign(keyed, {
      ok: false,
      why: [keyed.why, `${keyed.roundTrips} round trips > ${plain.roundTrips} without a key + 1`]
        .filter(Boolean)
        .join('; '),
    });
  return rows;
}

/** The one table: every operation, its calls and round trips against what it needs, and the verdict. */
export function printOperations(rows: OperationRow[]): void {
  console.log(
    '\nEvery operation against the DynamoDB calls it needs (budget: calls ≤ 1.2x, round trips ≤ needed, a read ≤ 2 round trips after the token check, a keyed POST ≤ 1 round trip more than without a key)\n',
  );
  console.log(
    ['operation', 'calls', 'needed calls', 'ratio', 'round trips', 'needed round trips', 'verdict'].join(' | '),
  );
  for (const r of rows)
    console.log(
      [
        r.operation,
        r.calls,
        r.neededCalls,
        (r.calls / r.neededCalls).toFixed(2),
        r.roundTrips,
        r.neededRoundTrips,
        r.ok ? 'OK' : `OVER (${r.why})`,
      ].join(' | '),
    );
  for (const r of rows) console.log(`${r.operation}: by command ${JSON.stringify(r.byCommand)}`);
}
