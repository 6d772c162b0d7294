import { randomUUID } from 'node:crypto';
import { applyImport, exampleDocument, planImport, type DocumentService } from '#domain/impex';
import { appContext } from '#shared/context';
import { ddb } from '#shared/clients';
import { SERVICE_ACTOR } from '#shared/audit';
import { setPlan } from '../helpers/plans.ts';
import { keys } from '#db/keys';
import { batchGet } from '#db/batch-get';
import { queryPage, queryPrefix } from '#db/query';
import { lookupsFor } from '#domain/catalog';
import { countItemsRead, type countCalls, fmt, percentile, timePair } from './measure.ts';
import { withServices } from './document.ts';
import { invoke } from './in-process.ts';

/**
 * GET /search in an environment of `size` services (BENCH_SEARCH_SERVICES; the budget is
 * measured at 50,000), imported with 200 servers (an address each) and 100 networks: per kind of
 * query, the handler's p50 and p95 over `runs` requests, its DynamoDB calls and round trips, the
 * index items and entities it read, and the results. Budgets: at most 3 round trips (the token check,
 * then 2), entities read at most the results (what is read is what is answered, not the environment),
 * and at 50,000 services and more a p95 of at most 300 ms.
 */
export async function searchBench(
  calls: ReturnType<typeof countCalls>,
  size: number,
  runs: number,
): Promise<{ lines: string[]; over: string[] }> {
  const email = `bench-search-${randomUUID()}@example.com`;
  const password = 'correct horse battery';
  await invoke('auth', 'POST', '/auth/register', 'POST /auth/register', { body: { email, password } });
  /** Signs in: its access token, and the account and session the token check reads. */
  const signIn = async () => {
    const login = await invoke('auth', 'POST', '/auth/login', 'POST /auth/login', { body: { email, password } });
    if (login.status !== 200)
      throw new Error(`search bench: sign-in answered ${login.status} ${JSON.stringify(login.body)}`);
    const token = login.body.access_token as string;
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { sub: string; sid: string };
    return { token, ...claims };
  };
  const first = await signIn();
  const sub = first.sub;
  await setPlan(sub, 'Enterprise+');
  const projectId = (
    await invoke('projects', 'POST', '/projects', 'POST /projects', {
      body: { name: 'bench-search' },
      token: first.token,
    })
  ).body.id as string;
  const envId = (
    await invoke('environments', 'POST', '/environments', 'POST /environments', {
      body: { name: 'prod', project_id: projectId },
      token: first.token,
    })
  ).body.id as string;

  // The environment, imported (its index entries written with each item, as every write path does).
  const pad = (i: number) => String(i).padStart(5, '0');
  const document = withServices(
    exampleDocument(),
    Array.from({ length: size }, (_, i) => ({
      name: `svc-${pad(i)}`,
      port: 8000 + (i % 1000),
      tags: [`team-${i % 50}`],
    })) as DocumentService[],
  );
  document.spec.service_floors.push(
    ...Array.from({ length: 200 }, (_, i) => ({
      hostname: `host-${pad(i)}`,
      type: 'vm' as const,
      ip_address: `10.0.${i % 100}.${10 + Math.floor(i / 100)}`,
    })),
  );
  document.spec.networks.push(
    ...Array.from({ length: 100 }, (_, i) => ({ name: `net-${pad(i)}`, cidr: `10.0.${i}.0/24`, is_private: true })),
  );
  const ctx = appContext();
  const plan = await planImport({ projectId, environmentId: envId, document }, ctx);
  if (plan.report.errors.length) throw new Error(`search bench: ${JSON.stringify(plan.report.errors.slice(0, 3))}`);
  await applyImport(plan, ctx, undefined, { importId: randomUUID(), actor: SERVICE_ACTOR, days: 30 });

  const middle = pad(Math.floor(size / 2));
  const queries: [string, string][] = [
    ['a name, exact', `svc-${middle}`],
    ['a prefix of names (20 of many)', 'svc-0'],
    ['inside a token', middle.slice(1)],
    ['a tag', 'team-7'],
    ['an address (its server, the networks holding it)', '10.0.42.10'],
    ['a CIDR (the networks inside it)', '10.0.0.0/16'],
    ['nothing', 'no-such-thing'],
  ];
  const items = countItemsRead(ddb());
  const lines: string[] = [];
  const over: string[] = [];
  for (const [what, q] of queries) {
    // A token of its own per query: at 50,000 services the import, and a slow query's runs, outlast one.
    const { token, sid } = await signIn();
    const started = Date.now();
    const url = `/search?project_id=${projectId}&q=${encodeURIComponent(q)}`;
    const one = async () => {
      const r = await invoke('services', 'GET', url, 'GET /search', { token });
      if (r.status !== 200) throw new Error(`GET /search answered ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.results.length as number;
    };
    // The same reads sent by hand, round by round: the token check; the access beside the index's ranges; the results.
    const answer = (await invoke('services', 'GET', url, 'GET /search', { token })).body.results as {
      kind: string;
      id: string;
      environment_id: string;
    }[];
    const resultKeys = answer.map((r) =>
      (r.kind === 'service' ? keys.service : r.kind === 'network' ? keys.network : keys.floor)(
        projectId,
        r.environment_id,
        r.id,
      ),
    );
    const raw = async () => {
      await batchGet([keys.account(sub), keys.session(sub, sid)]);
      await Promise.all([
        batchGet([keys.project(projectId), keys.member(projectId, sub)]),
        queryPrefix(projectId, keys.environmentPrefix),
        queryPrefix(projectId, keys.envRolesPrefix),
        ...lookupsFor(q).map((l) => queryPage(projectId, keys.listingPrefix('SEARCH', '') + l.prefix, { wanted: 20 })),
      ]);
      if (resultKeys.length) await batchGet(resultKeys);
    };
    const [samples, rawSamples] = await timePair(one, raw, runs, Math.min(5, runs));
    calls.reset();
    items.reset();
    const results = await one();
    const read = items.byCommand();
    // Beside the results: the token check's account and session, the access's project and membership.
    const entities = (read.BatchGetItemCommand ?? 0) - 4;
    // The access reads the project and the membership (BatchGet) and the one environment (Query; the owner has no roles): not the search's.
    const indexRead = (read.QueryCommand ?? 0) - 1;
    const p95 = percentile(samples, 95);
    const why = [
      calls.roundTrips() > 3 ? `${calls.roundTrips()} round trips > 3` : '',
      entities > results ? `${entities} entities read > ${results} results` : '',
      size >= 50_000 && p95 > 300 ? `p95 ${fmt(p95)} > 300 ms` : '',
    ]
      .filter(Boolean)
      .join('; ');
    if (why) over.push(`GET /search (${what}): ${why}`);
    lines.push(
      [
        `GET /search (${what}) at ${size.toLocaleString('en')} services`,
        fmt(percentile(samples, 50)),
        fmt(p95),
        fmt(percentile(rawSamples, 50)),
        (percentile(samples, 50) / percentile(rawSamples, 50)).toFixed(2),
        calls.total(),
        calls.roundTrips(),
        Math.max(0, indexRead),
        entities,
        results,
        why ? `OVER (${why})` : 'OK',
      ].join(' | '),
    );
    console.error(`search bench: ${what} measured in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  return { lines, over };
}

/** The search section of the bench's output. */
export function printSearch(lines: string[]): void {
  console.log(
    '\nSearch (budget: ≤ 3 round trips with the token check, entities read ≤ results, p95 ≤ 300 ms at 50,000 services)',
  );
  console.log(
    [
      'query',
      'handler p50',
      'handler p95',
      'raw DynamoDB p50',
      'ratio',
      'calls',
      'round trips',
      'index items read',
      'entities read',
      'results',
      'verdict',
    ].join(' | '),
  );
  for (const line of lines) console.log(line);
}
