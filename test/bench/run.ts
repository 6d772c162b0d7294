import {
  BatchGetCommand,
  BatchWriteCommand,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { FREE_PLAN_ID } from '#domain/billing';
import {
  applyImport,
  buildExportDocument,
  exampleDocument,
  planImport,
  toYaml,
  type DocumentService,
} from '#domain/impex';
import { createEnvironment } from '#domain/tenancy';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { startLocalStack } from '../../infra/local/stack.ts';
import { apiEvent, lambdaContext } from '../../infra/local/api-event.ts';
import { routeTable } from '../../functions/route-table.ts';
import { httpHandler } from '#http/pipeline';
import { ddb } from '#shared/clients';
import { keys } from '#db/keys';
import { batchGet as batchGetAll } from '#db/batch-get';
import { queryPage } from '#db/query';
import { countCalls, fmt, percentile, rawPrefix, timePair } from './measure.ts';
import { operationBudgets, printOperations } from './operations.ts';
import { ssoBenchStandIns, ssoCallbackBudgetLine, ssoOperationBudgets } from './sso-operations.ts';
import { withServices } from './document.ts';
import { printSearch, searchBench } from './search.ts';
import { appContext } from '#shared/context';
import { authenticate } from '#auth/authenticate';
import { createService, createFloor } from '#domain/catalog';
import { setPlan } from '../helpers/plans.ts';
import { SERVICE_ACTOR } from '#shared/audit';

/**
 * `npm run bench`: handler latency against the raw DynamoDB calls the handler needs, on the same
 * DynamoDB Local, as ratios from one run, plus DynamoDB round trips per request. Its sizes:
 * BENCH_RUNS requests per row (400), BENCH_SERVICES in the listed environment (1,000, the most one
 * page holds), BENCH_INVOICES of the account (100), BENCH_IMPORT_SERVICES imported (2,000),
 * BENCH_IMPORT_RUNS imports timed (5), BENCH_SEARCH_SERVICES in the searched environment (2,000); `npm test` runs it at a tiny size (test/infra/benches.test.ts).
 * First, the one table of every operation a user reaches often against the DynamoDB calls and round
 * trips it needs (operations.ts): the bench exits non-zero when one is over its budget.
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 400);
const LISTED = Number(process.env.BENCH_SERVICES ?? 1000);
const INVOICES = Number(process.env.BENCH_INVOICES ?? 100);
const IMPORTED = Number(process.env.BENCH_IMPORT_SERVICES ?? 2000);
/** Services in the searched environment: the budget is measured at 50,000 (BENCH_SEARCH_SERVICES=50000). */
const SEARCHED = Number(process.env.BENCH_SEARCH_SERVICES ?? 2000);
/** Requests for a dearer row: a `share` of RUNS, at least 20 (or RUNS, when fewer are asked for). */
const dearer = (share: number) => Math.max(Math.min(20, RUNS), Math.round(RUNS * share));
// No background work during measurements: the outbox reader, the webhook retry and deadline sweeps
// would deliver the seeded services' events in the same process, on the same client, while it is timed.
// No metric (EMF) lines either: the in-process handlers would print one per request, as vitest's configuration turns off too.
// Single sign-on's operations need the DNS stand-in (its address is configuration) and the local IdP.
const sso = await ssoBenchStandIns();
const stack = await startLocalStack({
  inMemory: true,
  withoutS3: true,
  withoutHttp: true,
  env: {
    TABLE_NAME: 'bench',
    LOG_LEVEL: 'error',
    LOCAL_DATA_DIR: '.bench',
    LOCAL_OUTBOX_POLL_MS: '0',
    LOCAL_STREAM_POLL_MS: '0',
    LOCAL_WEBHOOK_RETRY_SWEEP_SECONDS: '0',
    LOCAL_DEADLINE_SWEEP_SECONDS: '0',
    POWERTOOLS_METRICS_DISABLED: 'true',
    // The bench signs in more than SPEC's 10 times a minute from one address (the search part: once a query).
    LOGIN_RATE_LIMIT_PER_MINUTE: '1000000',
    ...sso.env,
  },
});
const TableName = stack.config.TABLE_NAME;
const auth = httpHandler(routeTable.auth);
const calls = countCalls(ddb());
// BENCH_SEARCH_ONLY=1: the search section alone (its budget is measured at BENCH_SEARCH_SERVICES=50000).
if (process.env.BENCH_SEARCH_ONLY) {
  const only = await searchBench(calls, SEARCHED, dearer(1 / 8));
  printSearch(only.lines);
  await stack.stop();
  process.exit(only.over.length ? 1 : 0);
}
const operations = [...(await operationBudgets(calls)), ...(await ssoOperationBudgets(calls, sso.dns))];

async function invoke(
  handler: ReturnType<typeof httpHandler>,
  method: string,
  url: string,
  routeKey: string,
  init: { body?: unknown; token?: string; params?: Record<string, string> } = {},
) {
  const event = apiEvent({
    method,
    url,
    routeKey,
    pathParameters: init.params,
    headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const res = (await handler(event, lambdaContext('bench', 'bench'))) as APIGatewayProxyStructuredResultV2;
  return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
}

/** Registers and signs in `email`; answers the access token and its subject and session. */
async function signedIn(email: string) {
  await invoke(auth, 'POST', '/auth/register', 'POST /auth/register', {
    body: { email, password: 'correct horse battery' },
  });
  const login = await invoke(auth, 'POST', '/auth/login', 'POST /auth/login', {
    body: { email, password: 'correct horse battery' },
  });
  const token = login.body.access_token as string;
  const { sub, sid } = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as {
    sub: string;
    sid: string;
  };
  return { token, sub, sid };
}

interface Row {
  name: string;
  handlerP50: number;
  handlerP99: number;
  rawP50: number;
  callsPerRequest: number;
  budget: string;
  byCommand?: Record<string, number>;
}
const rows: Row[] = [];

// GET /auth/me: token verification, then one BatchGet (account + session).
{
  const email = 'bench@example.com';
  await invoke(auth, 'POST', '/auth/register', 'POST /auth/register', {
    body: { email, password: 'correct horse battery' },
  });
  const login = await invoke(auth, 'POST', '/auth/login', 'POST /auth/login', {
    body: { email, password: 'correct horse battery' },
  });
  const token = login.body.access_token as string;
  const [, payload] = token.split('.');
  const { sub, sid } = JSON.parse(Buffer.from(payload, 'base64url').toString());
  const me = async () => {
    const r = await invoke(auth, 'GET', '/auth/me', 'GET /auth/me', { token });
    if (r.status !== 200) throw new Error(`GET /auth/me answered ${r.status}`);
  };
  const raw = () =>
    ddb().send(
      new BatchGetCommand({
        RequestItems: { [TableName]: { Keys: [keys.account(sub), keys.session(sub, sid)], ConsistentRead: true } },
      }),
    );
  const [handlerSamples, rawSamples] = await timePair(me, raw, RUNS);
  calls.reset();
  await me();
  rows.push({
    name: 'GET /auth/me',
    handlerP50: percentile(handlerSamples, 50),
    handlerP99: percentile(handlerSamples, 99),
    rawP50: percentile(rawSamples, 50),
    callsPerRequest: calls.total(),
    budget: '1 round trip, ratio ≤ 1.2',
  });
}

// The catalog: an environment of LISTED services (a tenth of them on one of ten floors), seeded
// through the domain functions on an unlimited plan (Enterprise+).
{
  const services = httpHandler(routeTable.services);
  const { token, sub, sid } = await signedIn('bench-catalog@example.com');
  await setPlan(sub, 'Enterprise+');
  const project = await invoke(httpHandler(routeTable.projects), 'POST', '/projects', 'POST /projects', {
    token,
    body: { name: 'bench' },
  });
  const env = await invoke(httpHandler(routeTable.environments), 'POST', '/environments', 'POST /environments', {
    token,
    body: { name: 'prod', project_id: project.body.id },
  });
  const [projectId, envId] = [project.body.id as string, env.body.id as string];
  const ctx = appContext({ actor: await authenticate(token, appContext()) });
  const floors: { id: string }[] = [];
  for (let i = 0; i < 10; i++)
    floors.push(
      await createFloor(ctx, { project_id: projectId, environment_id: envId, type: 'vm', hostname: `host-${i}` }),
    );
  const seeded: string[] = [];
  const SERVICES = LISTED;
  for (let i = 0; i < SERVICES; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, SERVICES - i) }, (_, j) =>
        createService(ctx, {
          name: `service-${String(i + j).padStart(4, '0')}`,
          project_id: projectId,
          environment_id: envId,
          service_floor_id: (i + j) % 10 === 0 ? floors[(i + j) % floors.length].id : undefined,
          provider: 'aws',
          provider_region: 'eu-west-1',
          programming_language: 'TypeScript',
          tags: ['bench', `t${(i + j) % 7}`],
          links: ['https://docs.example.com/service'],
          repository_url: 'https://git.example.com/service.git',
          port: 8080,
        }),
      ),
    );
    seeded.push(...batch.map((b) => b.id));
  }
  const tokenCheck = () =>
    ddb().send(
      new BatchGetCommand({
        RequestItems: { [TableName]: { Keys: [keys.account(sub), keys.session(sub, sid)], ConsistentRead: true } },
      }),
    );
  const accessKeys = (extra: { PK: string; SK: string }[]) => [
    keys.project(projectId),
    keys.member(projectId, sub),
    keys.envRole(projectId, envId, sub),
    keys.environment(projectId, envId),
    ...extra,
  ];
  const batchGet = (k: { PK: string; SK: string }[]) =>
    ddb().send(new BatchGetCommand({ RequestItems: { [TableName]: { Keys: k, ConsistentRead: true } } }));

  // GET /services?limit=<all>: token check; then access (project, membership, role, environment)
  // beside the services' listing Query; then one BatchGet (chunks of 100, in parallel) of the listed
  // services and the floors, groups and subgroups they name.
  const list = async () => {
    const r = await invoke(
      services,
      'GET',
      `/services?project_id=${projectId}&environment_id=${envId}&limit=${SERVICES}`,
      'GET /services',
      { token },
    );
    if (r.status !== 200 || r.body.length !== SERVICES)
      throw new Error(`GET /services answered ${r.status} with ${r.body?.length} items`);
  };
  const rawList = async () => {
    await tokenCheck();
    const [, listed] = await Promise.all([
      batchGet(accessKeys([])),
      queryPage<{ id: string; service_floor_id?: string; group_id?: string; subgroup_id?: string }>(
        projectId,
        keys.listingPrefix('SERVICE', envId),
        { wanted: SERVICES },
      ),
    ]);
    await batchGetAll(
      listed.flatMap((l) => [
        keys.service(projectId, envId, l.id),
        ...(l.service_floor_id ? [keys.floor(projectId, envId, l.service_floor_id)] : []),
        ...(l.group_id ? [keys.group(projectId, envId, l.group_id)] : []),
        ...(l.subgroup_id ? [keys.subgroup(projectId, envId, l.subgroup_id)] : []),
      ]),
    );
  };
  const LIST_RUNS = dearer(1 / 8);
  const [listSamples, rawListSamples] = await timePair(list, rawList, LIST_RUNS);
  calls.reset();
  await list();
  rows.push({
    name: `GET /services (${SERVICES.toLocaleString('en')}, limit=${SERVICES})`,
    handlerP50: percentile(listSamples, 50),
    handlerP99: percentile(listSamples, 99),
    rawP50: percentile(rawListSamples, 50),
    callsPerRequest: calls.total(),
    budget: 'Query on the env keys, no Scan; ratio ≤ 1.2',
    byCommand: calls.byCommand(),
  });

  // GET /services/{id} of a service on a floor: token check; locate (GetItem on the id lookup,
  // which also carries the floor hint); one BatchGet of project, membership, role, service,
  // environment and floor.
  const id = seeded[0];
  const floorId = floors[0].id;
  const one = async () => {
    const r = await invoke(services, 'GET', `/services/${id}`, 'GET /services/{service_id}', {
      token,
      params: { service_id: id },
    });
    if (r.status !== 200 || r.body.type !== 'vm')
      throw new Error(`GET /services/{id} answered ${r.status} ${JSON.stringify(r.body)}`);
  };
  const rawOne = async () => {
    await tokenCheck();
    await ddb().send(new GetCommand({ TableName, Key: keys.idLookup(id), ConsistentRead: true }));
    await batchGet(accessKeys([keys.service(projectId, envId, id), keys.floor(projectId, envId, floorId)]));
  };
  const [oneSamples, rawOneSamples] = await timePair(one, rawOne, RUNS);
  calls.reset();
  await one();
  rows.push({
    name: 'GET /services/{id}',
    handlerP50: percentile(oneSamples, 50),
    handlerP99: percentile(oneSamples, 99),
    rawP50: percentile(rawOneSamples, 50),
    callsPerRequest: calls.total(),
    budget: '≤ 2 round trips after the token check; ratio ≤ 1.2',
    byCommand: calls.byCommand(),
  });
}

// The cost of the audit entry: POST /services's transaction, captured once, then sent raw
// with fresh keys (conditions dropped: the writes alone), with and without its audit item, call by
// call; and the handler against the raw transaction with the audit item.
const auditRows: string[] = [];
{
  const services = httpHandler(routeTable.services);
  const { token, sub, sid } = await signedIn('bench-audit@example.com');
  await setPlan(sub, 'Enterprise+');
  const project = await invoke(httpHandler(routeTable.projects), 'POST', '/projects', 'POST /projects', {
    token,
    body: { name: 'bench-audit' },
  });
  const env = await invoke(httpHandler(routeTable.environments), 'POST', '/environments', 'POST /environments', {
    token,
    body: { name: 'prod', project_id: project.body.id },
  });
  let n = 0;
  const post = async () => {
    const r = await invoke(services, 'POST', '/services', 'POST /services', {
      token,
      body: {
        name: `audited-${n++}`,
        project_id: project.body.id,
        environment_id: env.body.id,
        port: 8080,
        tags: ['bench'],
        provider: 'aws',
        repository_url: 'https://git.example.com/s.git',
      },
    });
    if (r.status !== 201) throw new Error(`POST /services answered ${r.status} ${JSON.stringify(r.body)}`);
  };
  let captured: { TransactItems: Record<string, any>[] } | undefined;
  const client = ddb();
  const send = client.send.bind(client);
  (client as { send: unknown }).send = (command: { input: unknown }) => {
    if (command instanceof TransactWriteCommand)
      captured = structuredClone(command.input) as { TransactItems: Record<string, any>[] };
    return send(command as never);
  };
  await post();
  (client as { send: unknown }).send = send;
  if (!captured?.TransactItems.some((i) => i.Put?.Item?.type === 'audit'))
    throw new Error('POST /services wrote no audit entry');
  let scratch = 0;
  const used = (expr: string, map: Record<string, unknown> | undefined) =>
    Object.fromEntries(Object.entries(map ?? {}).filter(([k]) => expr.includes(k)));
  const isSearchEntry = (item: Record<string, any>) => String(item.Put?.Item?.type ?? '').endsWith('_search_listing');
  const raw =
    (withAudit: boolean, withSearch = true) =>
    async () => {
      const run = ++scratch;
      const key = (k: Record<string, string>) => ({ PK: `BENCH#audit#${run}#${k.PK}`, SK: k.SK });
      const TransactItems = captured!.TransactItems.filter(
        (item) => (withAudit || item.Put?.Item?.type !== 'audit') && (withSearch || !isSearchEntry(item)),
      ).map((item) => {
        const [op, body] = Object.entries(item)[0] as [string, Record<string, any>];
        if (op === 'Put') return { Put: { TableName, Item: { ...body.Item, ...key(body.Item) } } };
        if (op === 'Update') {
          const names = used(body.UpdateExpression, body.ExpressionAttributeNames) as Record<string, string>;
          return {
            Update: {
              TableName,
              Key: key(body.Key),
              UpdateExpression: body.UpdateExpression,
              ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
              ExpressionAttributeValues: used(body.UpdateExpression, body.ExpressionAttributeValues),
            },
          };
        }
        return {
          ConditionCheck: {
            TableName,
            Key: key(body.Key),
            ConditionExpression: 'attribute_not_exists(#nothing)',
            ExpressionAttributeNames: { '#nothing': 'bench_nothing' },
          },
        };
      });
      await ddb().send(new TransactWriteCommand({ TransactItems }));
    };
  const [withSamples, withoutSamples] = await timePair(raw(true), raw(false), RUNS);
  const w = percentile(withSamples, 50);
  const wo = percentile(withoutSamples, 50);
  auditRows.push(
    `POST /services transaction (${captured.TransactItems.length} items) | with its audit entry ${fmt(w)} | without ${fmt(wo)} | ratio ${(w / wo).toFixed(2)} | budget ≤ 1.15`,
  );
  // The search index's entries (written in the same transaction, docs/decisions/0975): the transaction with and without them.
  const entries = captured.TransactItems.filter(isSearchEntry).length;
  const [withIndex, withoutIndex] = await timePair(raw(true), raw(true, false), RUNS);
  const wi = percentile(withIndex, 50);
  const woi = percentile(withoutIndex, 50);
  auditRows.push(
    `POST /services transaction (${captured.TransactItems.length} items, ${entries} search entries) | with its search entries ${fmt(wi)} | without ${fmt(woi)} | ratio ${(wi / woi).toFixed(2)} | calls 1 either way`,
  );
  // The handler against its raw calls: token check, access (project, membership, role, environment),
  // the owner's subscriptions (the plan's limits and retention), then the transaction with its entry.
  const [projectId, envId] = [project.body.id as string, env.body.id as string];
  const rawPost = async () => {
    await ddb().send(
      new BatchGetCommand({
        RequestItems: { [TableName]: { Keys: [keys.account(sub), keys.session(sub, sid)], ConsistentRead: true } },
      }),
    );
    await ddb().send(
      new BatchGetCommand({
        RequestItems: {
          [TableName]: {
            Keys: [
              keys.project(projectId),
              keys.member(projectId, sub),
              keys.envRole(projectId, envId, sub),
              keys.environment(projectId, envId),
            ],
            ConsistentRead: true,
          },
        },
      }),
    );
    await ddb().send(
      new QueryCommand({
        TableName,
        ...rawPrefix(keys.account(sub).PK, keys.subscriptionPrefix),
        ConsistentRead: true,
      }),
    );
    await raw(true)();
  };
  const [postSamples, rawSamples] = await timePair(post, rawPost, dearer(1 / 4));
  calls.reset();
  await post();
  rows.push({
    name: 'POST /services (with its audit entry)',
    handlerP50: percentile(postSamples, 50),
    handlerP99: percentile(postSamples, 99),
    rawP50: percentile(rawSamples, 50),
    callsPerRequest: calls.total(),
    budget: 'ratio ≤ 1.2',
    byCommand: calls.byCommand(),
  });
}

// Billing: an account's invoices and its subscriptions live in its own partition.
{
  const billing = httpHandler(routeTable.billing);
  const { token, sub, sid } = await signedIn('bench-billing@example.com');
  const tokenCheck = () =>
    ddb().send(
      new BatchGetCommand({
        RequestItems: { [TableName]: { Keys: [keys.account(sub), keys.session(sub, sid)], ConsistentRead: true } },
      }),
    );
  const accountQuery = (prefix: string) =>
    ddb().send(
      new QueryCommand({
        TableName,
        ...rawPrefix(keys.account(sub).PK, prefix),
        ConsistentRead: true,
      }),
    );

  // POST /subscriptions/choose (Free): token check; the account's subscriptions (Query); the invoice
  // counter (GetItem); one transaction: the active one cancelled, the new one, the counter, the invoice.
  const choose = async () => {
    const r = await invoke(billing, 'POST', '/subscriptions/choose', 'POST /subscriptions/choose', {
      token,
      body: { plan_id: FREE_PLAN_ID },
    });
    if (r.status !== 200) throw new Error(`POST /subscriptions/choose answered ${r.status} ${JSON.stringify(r.body)}`);
  };
  const rawChoose = async () => {
    await tokenCheck();
    const subs = await accountQuery(keys.subscriptionPrefix);
    const active = subs.Items!.find((i) => i.status === 'active')!;
    const last =
      (await ddb().send(new GetCommand({ TableName, Key: keys.invoiceCounter, ConsistentRead: true }))).Item?.value ??
      0;
    const now = new Date().toISOString();
    const id = randomUUID();
    await ddb().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName,
              Key: keys.subscription(sub, active.id),
              UpdateExpression: 'SET #s = :s, updated_at = :n',
              ConditionExpression: '#s = :a',
              ExpressionAttributeNames: { '#s': 'status' },
              ExpressionAttributeValues: { ':s': 'active', ':a': 'active', ':n': now },
            },
          },
          {
            Put: {
              TableName,
              Item: {
                ...keys.subscription(sub, id),
                type: 'subscription',
                id,
                user_id: sub,
                plan_id: FREE_PLAN_ID,
                status: 'cancelled',
                period_start: now,
                period_end: now,
                created_at: now,
                updated_at: now,
              },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          {
            Update: {
              TableName,
              Key: keys.invoiceCounter,
              UpdateExpression: 'SET #v = :next',
              ConditionExpression: last ? '#v = :last' : 'attribute_not_exists(PK)',
              ExpressionAttributeNames: { '#v': 'value' },
              ExpressionAttributeValues: { ':next': last + 1, ...(last ? { ':last': last } : {}) },
            },
          },
          {
            Put: {
              TableName,
              Item: {
                PK: `BENCH#${id}`,
                SK: 'INVOICE',
                id,
                invoice_number: `INV-${last + 1}`,
                total_cents: 0,
                line_items: [{ item_type: 'subscription', qty: 1 }],
              },
            },
          },
        ],
      }),
    );
  };
  const CHOOSE_RUNS = dearer(1 / 4);
  const [chooseSamples, rawChooseSamples] = await timePair(choose, rawChoose, CHOOSE_RUNS);
  calls.reset();
  await choose();
  rows.push({
    name: 'POST /subscriptions/choose (Free)',
    handlerP50: percentile(chooseSamples, 50),
    handlerP99: percentile(chooseSamples, 99),
    rawP50: percentile(rawChooseSamples, 50),
    callsPerRequest: calls.total(),
    budget: 'ratio ≤ 1.2',
    byCommand: calls.byCommand(),
  });

  // GET /me/invoices with INVOICES invoices (or more: the choices timed above made theirs): token check, then one Query of the account's invoices.
  const invoices = async () => {
    const r = await invoke(billing, 'GET', '/me/invoices', 'GET /me/invoices', { token });
    if (r.status !== 200 || r.body.total < INVOICES)
      throw new Error(`GET /me/invoices answered ${r.status} with ${r.body?.total} invoices`);
  };
  const rawInvoices = async () => {
    await tokenCheck();
    await accountQuery(keys.invoicePrefix);
  };
  const seededInvoices = (await accountQuery(keys.invoicePrefix)).Items!.length;
  for (let i = seededInvoices; i < INVOICES; i++) await choose();
  const [invoiceSamples, rawInvoiceSamples] = await timePair(invoices, rawInvoices, RUNS);
  calls.reset();
  await invoices();
  rows.push({
    name: `GET /me/invoices (${Math.max(INVOICES, seededInvoices)} invoices)`,
    handlerP50: percentile(invoiceSamples, 50),
    handlerP99: percentile(invoiceSamples, 99),
    rawP50: percentile(rawInvoiceSamples, 50),
    callsPerRequest: calls.total(),
    budget: 'ratio ≤ 1.2',
    byCommand: calls.byCommand(),
  });
}

// GET /me/limits/status: an owner of two projects of two environments each. Token check; then the
// memberships, the account, the subscriptions and the window; then the projects (BatchGet) and each
// project's environments (Query), in parallel.
{
  const lifecycle = httpHandler(routeTable.lifecycle);
  const { token, sub, sid } = await signedIn('bench-limits@example.com');
  await setPlan(sub, 'Team');
  const projectIds: string[] = [];
  for (const name of ['one', 'two']) {
    const project = await invoke(httpHandler(routeTable.projects), 'POST', '/projects', 'POST /projects', {
      token,
      body: { name },
    });
    projectIds.push(project.body.id);
    for (const env of ['prod', 'staging'])
      await invoke(httpHandler(routeTable.environments), 'POST', '/environments', 'POST /environments', {
        token,
        body: { name: env, project_id: project.body.id },
      });
  }
  const status = async () => {
    const r = await invoke(lifecycle, 'GET', '/me/limits/status', 'GET /me/limits/status', { token });
    if (r.status !== 200 || r.body.services_per_env.length !== 4)
      throw new Error(`GET /me/limits/status answered ${r.status} ${JSON.stringify(r.body)}`);
  };
  const query = (pk: string, prefix: string) =>
    ddb().send(
      new QueryCommand({
        TableName,
        ...rawPrefix(pk, prefix),
        ConsistentRead: true,
      }),
    );
  const rawStatus = async () => {
    await ddb().send(
      new BatchGetCommand({
        RequestItems: { [TableName]: { Keys: [keys.account(sub), keys.session(sub, sid)], ConsistentRead: true } },
      }),
    );
    await Promise.all([
      query(keys.account(sub).PK, keys.membershipPrefix),
      ddb().send(new GetCommand({ TableName, Key: keys.account(sub), ConsistentRead: true })),
      query(keys.account(sub).PK, keys.subscriptionPrefix),
      ddb().send(new GetCommand({ TableName, Key: keys.downgradeWindow(sub), ConsistentRead: true })),
    ]);
    await Promise.all([
      ddb().send(
        new BatchGetCommand({
          RequestItems: { [TableName]: { Keys: projectIds.map((id) => keys.project(id)), ConsistentRead: true } },
        }),
      ),
      ...projectIds.map((id) => query(keys.projectPK(id), keys.environmentPrefix)),
    ]);
  };
  const [statusSamples, rawStatusSamples] = await timePair(status, rawStatus, RUNS);
  calls.reset();
  await status();
  rows.push({
    name: 'GET /me/limits/status (2 projects, 4 environments)',
    handlerP50: percentile(statusSamples, 50),
    handlerP99: percentile(statusSamples, 99),
    rawP50: percentile(rawStatusSamples, 50),
    callsPerRequest: calls.total(),
    budget: '≤ 2 round trips after the token check; ratio ≤ 1.2',
    byCommand: calls.byCommand(),
  });
}

// Import of IMPORTED services into an empty environment (plan + apply) against a raw BatchWriteItem
// of exactly the items it wrote, as `bench:scale` measures its import job (captured from one import,
// staged chunks' journals left out; written again with their keys moved to a scratch partition, 25 a
// request, 4 in flight like the import); and the export of that environment, timed.
const importRows: string[] = [];
{
  const { token, sub } = await signedIn('bench-impex@example.com');
  await setPlan(sub, 'Enterprise+');
  const project = await invoke(httpHandler(routeTable.projects), 'POST', '/projects', 'POST /projects', {
    token,
    body: { name: 'bench-impex' },
  });
  const projectId = project.body.id as string;
  const ctx = appContext({ actor: await authenticate(token, appContext()) });
  const SERVICES = IMPORTED;
  // The example's groups, floors and networks with the bench's services; what named the example's own services goes with them.
  const document = withServices(
    exampleDocument(),
    Array.from({ length: SERVICES }, (_, i) => ({
      name: `service-${String(i).padStart(4, '0')}`,
      port: 8000 + (i % 1000),
      tags: ['bench'],
    })) as DocumentService[],
  );
  const freshEnv = async (i: number) =>
    (await createEnvironment(ctx, { project_id: projectId, name: `import-${i}` })).id;
  const workerCtx = appContext();
  const runImport = async (envId: string) => {
    const plan = await planImport({ projectId, environmentId: envId, document }, workerCtx);
    if (plan.report.errors.length)
      throw new Error(`import plan has errors: ${JSON.stringify(plan.report.errors.slice(0, 3))}`);
    // With the import's audit entries (an entry per created service), as the jobs worker writes them.
    const report = await applyImport(plan, workerCtx, undefined, {
      importId: randomUUID(),
      actor: SERVICE_ACTOR,
      days: 30,
    });
    if (report.summary.create < SERVICES) throw new Error(`import created ${report.summary.create}`);
  };
  // One import with the items it writes captured: the Puts of its transactions and of its BatchWriteItems (a staged chunk's).
  const captured: Record<string, unknown>[] = [];
  const client = ddb();
  const send = client.send.bind(client);
  (client as { send: unknown }).send = (command: unknown) => {
    // A staged chunk's journal is the import's own bookkeeping, not an item of the catalog: the raw baseline leaves it out (it counts against the import).
    if (command instanceof TransactWriteCommand)
      for (const item of command.input.TransactItems ?? [])
        if (item.Put && !String(item.Put.Item?.SK).startsWith('STAGED#'))
          captured.push(structuredClone(item.Put.Item!));
    if (command instanceof BatchWriteCommand)
      for (const requests of Object.values(command.input.RequestItems ?? {}))
        for (const r of requests) if (r.PutRequest) captured.push(structuredClone(r.PutRequest.Item!));
    return send(command as never);
  };
  await runImport(await freshEnv(0));
  (client as { send: unknown }).send = send;
  let scratch = 0;
  const rawImport = async () => {
    const run = ++scratch;
    const requests: Record<string, unknown>[][] = [];
    for (let i = 0; i < captured.length; i += 25)
      requests.push(
        captured.slice(i, i + 25).map((Item) => ({ PutRequest: { Item: { ...Item, PK: `BENCH#${run}#${Item.PK}` } } })),
      );
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < requests.length)
          await ddb().send(new BatchWriteCommand({ RequestItems: { [TableName]: requests[next++] as never } }));
      }),
    );
  };
  const IMPORT_RUNS = Number(process.env.BENCH_IMPORT_RUNS ?? 5);
  const handlerTimes: number[] = [];
  const rawTimes: number[] = [];
  for (let i = 1; i <= IMPORT_RUNS; i++) {
    const envId = await freshEnv(i);
    let t = performance.now();
    await runImport(envId);
    handlerTimes.push(performance.now() - t);
    t = performance.now();
    await rawImport();
    rawTimes.push(performance.now() - t);
  }
  const h = percentile(handlerTimes, 50);
  const r = percentile(rawTimes, 50);
  importRows.push(
    `import of ${SERVICES} services (plan + apply) | ${fmt(h)} | raw BatchWrite of its ${captured.length} items ${fmt(r)} | ratio ${(h / r).toFixed(2)} | budget ≤ 1.5`,
  );
  const exportTimes: number[] = [];
  let size = 0;
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const yaml = await toYaml(
      await buildExportDocument({
        projectId,
        environmentId: (
          await ddb().send(
            new QueryCommand({
              TableName,
              ...rawPrefix(keys.projectPK(projectId), keys.environmentPrefix),
              Limit: 1,
            }),
          )
        ).Items![0].id as string,
        recordId: randomUUID(),
        exportedAt: new Date().toISOString(),
      }),
    );
    exportTimes.push(performance.now() - t);
    size = yaml.length;
  }
  importRows.push(
    `export of ${SERVICES} services to YAML | ${fmt(percentile(exportTimes, 50))} (p50 of 5) | ${Math.round(size / 1024)} KB`,
  );
}

const search = await searchBench(calls, SEARCHED, dearer(1 / 8));

console.log(`\nBenchmarks (${RUNS} requests each, in-process handlers against DynamoDB Local)\n`);
console.log(
  [
    'endpoint',
    'handler p50',
    'handler p99',
    'raw DynamoDB p50',
    'overhead ratio',
    'DynamoDB calls/request',
    'budget',
  ].join(' | '),
);
for (const r of rows) {
  console.log(
    [
      r.name,
      fmt(r.handlerP50),
      fmt(r.handlerP99),
      fmt(r.rawP50),
      (r.handlerP50 / r.rawP50).toFixed(2),
      String(r.callsPerRequest),
      r.budget,
    ].join(' | '),
  );
}
for (const r of rows.filter((r) => r.byCommand))
  console.log(`${r.name}: DynamoDB calls by command ${JSON.stringify(r.byCommand)}`);
console.log("\nThe audit entry's and the search entries' cost (p50)");
for (const line of auditRows) console.log(line);
console.log('\nImport and export (medians)');
for (const line of importRows) console.log(line);
printSearch(search.lines);
printOperations(operations);
console.log(`\n${ssoCallbackBudgetLine(operations)}`);
const over = [...operations.filter((o) => !o.ok), ...search.over.map((operation) => ({ operation }))];
console.log(
  over.length
    ? `\n${over.length} operation(s) over budget: ${over.map((o) => o.operation).join(', ')}`
    : `\nevery operation (${operations.length}) within budget`,
);
await stack.stop();
await sso.dns.stop();
if (over.length) process.exitCode = 1;
