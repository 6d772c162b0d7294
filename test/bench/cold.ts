import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { separatePackageCommands } from '../../infra/cdk/aliases.ts';
import { stackFunctions } from '../../infra/cdk/functions.ts';
import { beyondBaseline, profileImport } from './cold-profile.ts';
import { bundleAsDeployed, ROOT } from './deployed-bundle.ts';

/**
 * `npm run bench:cold`: every function bundled as the stack bundles it (deployed-bundle.ts), and the CPU time of a fresh `node` importing
 * it, against a hello-world bundle that creates one DynamoDB document client. Runs are interleaved
 * (baseline, function, baseline, function, …) so machine noise falls on both; node's own start-up
 * is in both. Prints per function the bundle size, the median CPU time and the median ratio.
 */
const root = ROOT;
const out = join(root, '.bench', 'cold');
const RUNS = Number(process.env.COLD_RUNS ?? 15);

const BUDGET = 1.3;
/** Every function of the stack (`stackFunctions`, what `cdk.out` holds), named by its entry: `auth`, `workers/jobs`, `streams/outbox`, `websocket/authorizer`. */
const entries: [string, string][] = stackFunctions().map((f) => [
  f.entry
    .replace(/^functions\//, '')
    .replace(/\/handler\.ts$/, '')
    .replace(/\.ts$/, ''),
  join(root, f.entry),
]);

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const baselineSource = join(out, 'hello.ts');
writeFileSync(
  baselineSource,
  "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nimport { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';\nconst client = DynamoDBDocumentClient.from(new DynamoDBClient({}));\nexport const handler = async () => ({ statusCode: 200, body: String(Boolean(client)) });\n",
);

async function bundle(name: string, entry: string): Promise<{ file: string; bytes: number }> {
  const file = join(out, `${name.replace(/\//g, '__')}.mjs`);
  return { file, bytes: await bundleAsDeployed(entry, file) };
}

/** CPU milliseconds (user + system) of a fresh node that imports `file` and exits. */
function coldImport(file: string): number {
  const script =
    'await import(process.argv[1]); const u = process.cpuUsage(); console.log((u.user + u.system) / 1000);';
  return Number(
    execFileSync(process.execPath, ['--input-type=module', '-e', script, file], {
      cwd: root,
      env: { ...process.env, ...STACK_ENV },
    })
      .toString()
      .trim(),
  );
}

/**
 * The same, plus what the first invocation adds with tracing on: the tracer, pre-bundled as the stack
 * ships it beside the bundle, imported and created (shared/tracing.ts `prepareTracing`). The cold start a
 * traced container really pays; reported beside the import figure, not hidden by it.
 */
const tracerFile = join(out, 'node_modules/@aws-lambda-powertools/tracer/index.mjs');
function coldImportTraced(file: string): number {
  const script =
    "await import(process.argv[1]); const { Tracer } = await import(process.argv[2]); new Tracer({ serviceName: 'bench' }); const u = process.cpuUsage(); console.log((u.user + u.system) / 1000);";
  return Number(
    execFileSync(process.execPath, ['--input-type=module', '-e', script, file, tracerFile], {
      cwd: root,
      env: { ...process.env, ...STACK_ENV },
    })
      .toString()
      .trim(),
  );
}

/** What the stack gives every function that matters at import (tracing on: the tracer must still not load at import). */
const STACK_ENV = {
  AWS_REGION: 'us-east-1',
  STAGE: 'cloud',
  NODE_OPTIONS: '',
  POWERTOOLS_SERVICE_NAME: 'bench',
  POWERTOOLS_METRICS_NAMESPACE: 'InfraCatalog',
  POWERTOOLS_TRACE_ENABLED: 'true',
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const baseline = await bundle('hello-world', baselineSource);
for (const command of separatePackageCommands(root, out, '@aws-lambda-powertools/tracer'))
  execFileSync('sh', ['-c', command]);
// COLD_ONLY=workers/jobs,impex measures those functions only.
const only = process.env.COLD_ONLY?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const chosen = only?.length ? entries.filter(([name]) => only.includes(name)) : entries;
const bundles = await Promise.all(chosen.map(async ([name, entry]) => ({ name, ...(await bundle(name, entry)) })));
const rows = [];
for (const b of bundles) {
  const ratios: number[] = [];
  const times: number[] = [];
  const tracedRatios: number[] = [];
  coldImport(baseline.file); // warm the file cache for both
  coldImport(b.file);
  for (let i = 0; i < RUNS; i++) {
    const base = coldImport(baseline.file);
    const t = coldImport(b.file);
    times.push(t);
    ratios.push(t / base);
    tracedRatios.push(coldImportTraced(b.file) / base);
  }
  rows.push({
    function: b.name,
    'bundle KB': Math.round(b.bytes / 1024),
    'cold import CPU ms': Number(median(times).toFixed(1)),
    ratio: Number(median(ratios).toFixed(2)),
    [`within ${BUDGET}x`]: median(ratios) <= BUDGET ? 'yes' : 'NO',
    'ratio, tracer loaded': Number(median(tracedRatios).toFixed(2)),
  });
}
console.log(
  `\nCold import, median of ${RUNS} interleaved runs; baseline: hello-world with one DynamoDB document client (${Math.round(baseline.bytes / 1024)} KB)\n`,
);
console.table(rows);
const worst = rows.reduce((w, r) => (r.ratio > w.ratio ? r : w), rows[0]);
const over = rows.filter((r) => r.ratio > BUDGET);
/** Fewer runs than this (`npm test`'s smoke size) print their figures without a verdict: one noisy run on a busy machine decides nothing. */
const VERDICT_RUNS = 5;
console.log(
  `worst: ${worst.function} ${worst.ratio}x (budget ${BUDGET}x); ${RUNS < VERDICT_RUNS ? `no verdict from ${RUNS} run(s)` : over.length ? `OVER: ${over.map((r) => `${r.function} ${r.ratio}x`).join(', ')}` : 'every function within budget'}`,
);

// COLD_PROFILE=1: where each function's import time goes beyond the baseline's, per module (cold-profile.ts).
if (process.env.COLD_PROFILE) {
  const env = { ...process.env, ...STACK_ENV };
  const runs = Number(process.env.COLD_PROFILE_RUNS ?? 5);
  const base = profileImport(baseline.file, root, env, runs);
  console.log(
    `\nCPU profile of the import (median of ${runs} --cpu-prof runs, 100 µs samples): modules costing 0.5 ms or more beyond the baseline's`,
  );
  for (const b of bundles) {
    const modules = beyondBaseline(profileImport(b.file, root, env, runs), base);
    console.log(`${b.name}: ${modules.map(([name, ms, baseMs]) => `${name} +${(ms - baseMs).toFixed(1)}`).join(', ')}`);
  }
}
if (over.length && RUNS >= VERDICT_RUNS) process.exitCode = 1;
