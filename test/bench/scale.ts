import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { startLocalStack } from '../../infra/local/stack.ts';
import { ddb } from '#shared/clients';
import { appContext } from '#shared/context';
import { useLocalQueueTransport } from '#shared/queue';
import { putDocument } from '#shared/storage';
import { keys } from '#db/keys';
import { batchGet } from '#db/batch-get';
import { queryPage } from '#db/query';
import { ensureTable } from '../../infra/local/bootstrap.ts';
import { JOBS_HEAP_MB, jobsV8Flags } from '../../infra/cdk/functions.ts';
import { authenticate } from '#auth/authenticate';
import { recordById, startExport, startImport, toYaml } from '#domain/impex';
import { setPlan } from '../helpers/plans.ts';
import { blastRadiusBench } from './scale-blast.ts';
import { invoke } from './in-process.ts';
import { document, serviceName } from './scale-document.ts';
import { countItemsRead, rawPrefix } from './measure.ts';
import { bundleAsDeployed, shipSeparatePackages } from './deployed-bundle.ts';

/**
 * `npm run bench:scale`: environments of 2,000 and 50,000 services (a floor per 10
 * services, 20 networks, 3 connections per service: to the next two and to a hub) built by the
 * import job from an uploaded document, then per size: list pages (ms and items read), a hub's blast
 * radius, the import and export jobs against raw BatchWrite / Query of the same items, and the jobs'
 * peak memory (each job in its own process). SCALE_SIZES=2000,10000 picks other sizes.
 * SCALE_ONLY picks what follows the import, a comma-separated list of `lists`, `blast`, `export`
 * (SCALE_ONLY=import: the import alone); all three without it.
 */
const SIZES = (process.env.SCALE_SIZES ?? '2000,50000').split(',').map(Number);
const ONLY = process.env.SCALE_ONLY?.split(',');
const measured = (part: 'lists' | 'blast' | 'export') => !ONLY || ONLY.includes(part);

/** SCALE_BLAST_EDGES=6000,100000: only the blast radius, over hub environments written raw (scale-blast.ts). */
const BLAST_EDGES = process.env.SCALE_BLAST_EDGES?.split(',').map(Number);
/** BatchWriteItem requests in flight, as the import's (shared/db/batch-write.ts). */
const IN_FLIGHT = 4;
const ROOT = join(import.meta.dirname, '..', '..');
/**
 * The jobs' V8 heap, capped as the stack caps the jobs worker's (jobsV8Flags, infra/cdk/functions.ts: old space and semi-spaces):
 * without a cap V8 sizes it from this 24 GB machine and collects late, so RSS would say more about
 * the machine than about the job. SCALE_JOB_HEAP_MB=N tries another cap (0: none).
 */
const JOB_HEAP_MB = Number(process.env.SCALE_JOB_HEAP_MB ?? JOBS_HEAP_MB);
/**
 * The jobs run as the deployed worker runs: scale-job.ts (the worker's handler, plus the timing) bundled
 * once as the stack bundles the worker, with the packages the stack ships beside it, inside the project so
 * that the `@aws-sdk/*` it leaves to the Lambda runtime resolve from node_modules.
 */
const JOB_DIR = join(ROOT, '.bench', 'scale-job');
const JOB_BUNDLE = join(JOB_DIR, 'index.mjs');
await rm(JOB_DIR, { recursive: true, force: true });
await bundleAsDeployed(join(ROOT, 'test/bench/scale-job.ts'), JOB_BUNDLE);
shipSeparatePackages('functions/workers/jobs/handler.ts', JOB_DIR);
const dataDir = await mkdtemp(join(tmpdir(), 'infra-catalog-bench-scale-'));
const stack = await startLocalStack({
  inMemory: true,
  withoutHttp: true,
  env: {
    TABLE_NAME: 'scale',
    LOCAL_DATA_DIR: dataDir,
    LOG_LEVEL: 'error',
    LOCAL_OUTBOX_POLL_MS: '0',
    LOCAL_STREAM_POLL_MS: '0',
    LOCAL_WEBHOOK_RETRY_SWEEP_SECONDS: '0',
    LOCAL_DEADLINE_SWEEP_SECONDS: '0',
    POWERTOOLS_METRICS_DISABLED: 'true',
    LOGIN_RATE_LIMIT_PER_MINUTE: '1000',
  },
});
const TableName = stack.config.TABLE_NAME;
// The jobs run in child processes (their memory is what is measured): the queue only collects them.
useLocalQueueTransport(async () => {});

/** Items DynamoDB read for the requests of this process: ScannedCount of Query/Scan, items of Get/BatchGet. */
const itemsRead = countItemsRead(ddb());

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** Median time and items read of `runs` calls. */
async function measure(fn: () => Promise<unknown>, runs = 5) {
  await fn();
  const times: number[] = [];
  let read = 0;
  for (let i = 0; i < runs; i++) {
    itemsRead.reset();
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
    read = itemsRead.total();
  }
  return { ms: median(times), read };
}

function runJob(
  kind: 'import' | 'export',
  projectId: string,
  recordId: string,
  capture?: string,
): Promise<{ ms: number; maxRssMb: number; peakHeapMb: number }> {
  return new Promise((resolve, reject) => {
    const { DYNAMODB_ENDPOINT, S3_ENDPOINT, BUCKET_NAME, LOCAL_DATA_DIR } = stack.config;
    // NODE_OPTIONS as the stack sets it on every function.
    const env = {
      ...process.env,
      NODE_OPTIONS: '--enable-source-maps',
      DYNAMODB_ENDPOINT,
      S3_ENDPOINT,
      BUCKET_NAME,
      LOCAL_DATA_DIR,
      TABLE_NAME: TableName,
      LOG_LEVEL: 'error',
      POWERTOOLS_METRICS_DISABLED: 'true',
    };
    const child = spawn(
      process.execPath,
      [...jobsV8Flags(JOB_HEAP_MB), JOB_BUNDLE, kind, projectId, recordId, ...(capture ? [capture] : [])],
      { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.once('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').at(-1)!))
        : reject(new Error(`job ${recordId} exited ${code}: ${out}`)),
    );
  });
}

/**
 * Writes the captured items again, the same keys in a fresh table of the same definition (so the
 * copies never sit beside the catalog while its pages, blast radius and export are measured), 25 a
 * request, IN_FLIGHT at once.
 */
async function rawBatchWrite(capture: string, table: string): Promise<{ ms: number; items: number }> {
  await ensureTable(table);
  const items: Record<string, unknown>[] = [];
  for await (const line of createInterface({ input: createReadStream(capture) }))
    if (line) items.push(JSON.parse(line));
  const requests: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25)
    requests.push(items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })));
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < requests.length)
        await ddb().send(new BatchWriteCommand({ RequestItems: { [table]: requests[next++] as never } }));
    }),
  );
  return { ms: performance.now() - t, items: items.length };
}

/**
 * The two reads at the heart of a page, raw: the listing Query of `offset + 50` items, then one
 * BatchGet of the page's 50 services: DynamoDB Local's own pace at this size, to tell its growth
 * from the route's.
 */
async function rawPage(projectId: string, envId: string, offset: number) {
  const listed = await queryPage<{ id: string }>(projectId, keys.listingPrefix('SERVICE', envId), {
    wanted: offset + 50,
  });
  await batchGet(listed.slice(offset).map((l) => keys.service(projectId, envId, l.id)));
}

/** What the export reads, raw: one Query per kind of the environment's items, in parallel, following pages. */
async function rawRead(projectId: string, envId: string) {
  const prefixes = [
    keys.groupPrefix,
    keys.subgroupPrefix,
    keys.floorPrefix,
    keys.networkPrefix,
    keys.servicePrefix,
    keys.linkPrefix,
    keys.connectionPrefix,
    keys.connectionChainPrefix,
  ].map((p) => p(envId));
  const t = performance.now();
  let n = 0;
  await Promise.all(
    prefixes.map(async (prefix) => {
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const out = await ddb().send(
          new QueryCommand({
            TableName,
            ...rawPrefix(keys.projectPK(projectId), prefix),
            ConsistentRead: true,
            ExclusiveStartKey,
          }),
        );
        n += out.Items?.length ?? 0;
        ExclusiveStartKey = out.LastEvaluatedKey;
      } while (ExclusiveStartKey);
    }),
  );
  return { ms: performance.now() - t, items: n };
}

const budget = (ok: boolean) => (ok ? 'OK' : 'OVER');
/** The time budgets are the 50,000-service environment's; a smaller size shows its ratio for reference (fixed costs weigh more there). */
const atScale = (n: number, ok: boolean) => (n >= 50_000 ? budget(ok) : '(reference: the budget is for 50,000)');
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
type Figure = { ms: number; read: number };
const results: Record<number, Record<'first' | 'offset' | 'rawFirst' | 'rawOffset', Figure>> = {};

const email = `scale-${Date.now()}@example.com`;
await invoke('auth', 'POST', '/auth/register', 'POST /auth/register', {
  body: { email, password: 'correct horse battery' },
});
/** A fresh access token: a big size's import outlasts one (15 minutes). */
const signIn = async () =>
  (
    await invoke('auth', 'POST', '/auth/login', 'POST /auth/login', {
      body: { email, password: 'correct horse battery' },
    })
  ).body.access_token as string;
let token = await signIn();
const ctx = appContext({ actor: await authenticate(token, appContext()) });
await setPlan(ctx.actor!.account.id, 'Enterprise+');
const started = performance.now();
try {
  if (BLAST_EDGES)
    await blastRadiusBench({ edgeCounts: BLAST_EDGES, TableName, signIn, invoke: invoke as never, measure });
  else
    for (const n of SIZES) {
      console.log(
        `\n== ${n.toLocaleString('en')} services, ${(3 * n).toLocaleString('en')} connections, ${n / 10} floors, 20 networks`,
      );
      const project = await invoke('projects', 'POST', '/projects', 'POST /projects', {
        token,
        body: { name: `scale-${n}` },
      });
      const env = await invoke('environments', 'POST', '/environments', 'POST /environments', {
        token,
        body: { name: 'big', project_id: project.body.id },
      });
      const [projectId, envId] = [project.body.id as string, env.body.id as string];

      // Import: the document uploaded (as through an upload URL), the job in its own process.
      const text = await toYaml(document(n));
      const uploadId = crypto.randomUUID();
      await putDocument(`imports/${projectId}/${uploadId}`, text, 'application/yaml');
      const imported = await startImport(ctx, { project_id: projectId, environment_id: envId, upload_id: uploadId });
      const capture = join(dataDir, `items-${n}.jsonl`);
      const importJob = await runJob('import', projectId, imported.record_id, capture);
      const importRecord = await recordById(imported.record_id);
      if (importRecord?.status !== 'succeeded')
        throw new Error(
          `the import ${importRecord?.status}: ${importRecord?.error} ${JSON.stringify(importRecord?.report?.errors?.slice(0, 3))}`,
        );
      const raw = await rawBatchWrite(capture, `${TableName}-raw-${n}`);
      const importRatio = importJob.ms / raw.ms;
      console.log(
        `import job (${(text.length / 2 ** 20).toFixed(1)} MB YAML, ${raw.items.toLocaleString('en')} items written): ${s(importJob.ms)}; raw BatchWrite of the same items ${s(raw.ms)}: ${importRatio.toFixed(2)}x (budget ≤ 1.5x) ${atScale(n, importRatio <= 1.5)}`,
      );
      console.log(
        `import job peak memory: ${importJob.maxRssMb.toFixed(0)} MB RSS, ${importJob.peakHeapMb.toFixed(0)} MB heap (budget < 512 MB) ${budget(importJob.maxRssMb < 512)}`,
      );
      await rm(capture);
      token = await signIn();

      if (measured('lists')) {
        // Lists: the first page, a page at offset 1,000, a filtered page (items read from DynamoDB's own counts).
        const list = (query: string) => async () => {
          const r = await invoke(
            'services',
            'GET',
            `/services?project_id=${projectId}&environment_id=${envId}&${query}`,
            'GET /services',
            { token },
          );
          if (r.status !== 200 || !Array.isArray(r.body)) throw new Error(`GET /services?${query}: ${r.status}`);
        };
        const first = await measure(list('limit=50'));
        const offset = await measure(list('limit=50&offset=1000'));
        const filtered = await measure(list('limit=50&tags=team-3&language=go'));
        const [rawFirst, rawOffset] = [
          await measure(() => rawPage(projectId, envId, 0)),
          await measure(() => rawPage(projectId, envId, 1000)),
        ];
        results[n] = { first, offset, rawFirst, rawOffset };
        console.log(
          `GET /services limit=50: ${first.ms.toFixed(1)} ms, ${first.read.toLocaleString('en')} items read (its listing Query and BatchGet raw: ${rawFirst.ms.toFixed(1)} ms)`,
        );
        console.log(
          `GET /services limit=50 offset=1000: ${offset.ms.toFixed(1)} ms, ${offset.read.toLocaleString('en')} items read (raw: ${rawOffset.ms.toFixed(1)} ms)`,
        );
        console.log(
          `GET /services limit=50 tags=team-3 language=go: ${filtered.ms.toFixed(1)} ms, ${filtered.read.toLocaleString('en')} items read`,
        );
      }
      if (measured('blast')) {
        // Blast radius of the hub (every other service connects to it): linear in edges.
        const hubId = (
          await invoke(
            'services',
            'GET',
            `/services?project_id=${projectId}&environment_id=${envId}&name=${serviceName(0)}&limit=1`,
            'GET /services',
            { token },
          )
        ).body[0].id as string;
        let affected = 0;
        const blast = await measure(async () => {
          const r = await invoke(
            'topology',
            'GET',
            `/services/${hubId}/blast-radius`,
            'GET /services/{service_id}/blast-radius',
            { token, params: { service_id: hubId } },
          );
          if (r.status !== 200) throw new Error(`blast radius: ${r.status}`);
          affected = r.body.affected.length;
        }, 3);
        console.log(
          `blast radius of the hub: ${blast.ms.toFixed(0)} ms over ${(3 * n).toLocaleString('en')} edges (${((blast.ms / (3 * n)) * 1000).toFixed(1)} ms per 1,000 edges), ${affected.toLocaleString('en')} affected, ${blast.read.toLocaleString('en')} items read`,
        );
      }

      if (!measured('export')) continue;
      // Export: the job in its own process against the same reads raw; then the download, straight from the bucket.
      const exported = await startExport(ctx, { project_id: projectId, environment_id: envId });
      const exportJob = await runJob('export', projectId, exported.record_id);
      const exportRecord = (await recordById(exported.record_id))!;
      if (exportRecord.status !== 'succeeded')
        throw new Error(`the export ${exportRecord.status}: ${exportRecord.error}`);
      const rawExport = await rawRead(projectId, envId);
      const exportRatio = exportJob.ms / rawExport.ms;
      console.log(
        `export job: ${s(exportJob.ms)}; raw Query of its ${rawExport.items.toLocaleString('en')} items ${s(rawExport.ms)}: ${exportRatio.toFixed(2)}x (budget < 1.5x) ${atScale(n, exportRatio < 1.5)}`,
      );
      console.log(
        `export job peak memory: ${exportJob.maxRssMb.toFixed(0)} MB RSS, ${exportJob.peakHeapMb.toFixed(0)} MB heap (budget < 512 MB) ${budget(exportJob.maxRssMb < 512)}`,
      );
      const link = new URL(exportRecord.download_url!);
      const redirect = await invoke(
        'impex',
        'GET',
        `${link.pathname}${link.search}`,
        'GET /impex/download/{record_id}',
        { params: { record_id: exportRecord.id } },
      );
      if (redirect.status !== 302)
        throw new Error(`the signed link answered ${redirect.status}: ${JSON.stringify(redirect.body)}`);
      const t = performance.now();
      const download = await fetch(String(redirect.headers.location ?? redirect.headers.Location));
      const bytes = (await download.arrayBuffer()).byteLength;
      console.log(
        `download through the presigned URL (no API in the path): ${(bytes / 2 ** 20).toFixed(1)} MB in ${s(performance.now() - t)} (${download.status})`,
      );
    }
  if (results[2000] && results[50000]) {
    for (const [label, key, rawKey] of [
      ['first page', 'first', 'rawFirst'],
      ['page at offset 1,000', 'offset', 'rawOffset'],
    ] as const) {
      const [small, big] = [results[2000][key], results[50000][key]];
      const [readRatio, timeRatio] = [big.read / small.read, big.ms / small.ms];
      const rawRatio = results[50000][rawKey].ms / results[2000][rawKey].ms;
      console.log(
        `\n${label} at 50,000 vs 2,000: items read ${readRatio.toFixed(2)}x, time ${timeRatio.toFixed(2)}x (budget ≤ 1.3x) ${budget(readRatio <= 1.3 && timeRatio <= 1.3)}; the same reads raw ${rawRatio.toFixed(2)}x, so the route's own time ${(timeRatio / rawRatio).toFixed(2)}x`,
      );
    }
  }
  console.log(`\n(total ${s(performance.now() - started)})`);
} finally {
  await stack.stop();
  await rm(dataDir, { recursive: true, force: true });
}
process.exit(0);
