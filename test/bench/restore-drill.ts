import { mkdtemp, rm } from 'node:fs/promises';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { ddb } from '#shared/clients';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack } from '../../infra/local/stack.ts';
import { appContext } from '#shared/context';
import { putDocument } from '#shared/storage';
import { keys } from '#db/keys';
import { batchWrite } from '#db/batch-write';
import { queryPrefix } from '#db/query';
import { authenticate } from '#auth/authenticate';
import { recordById, startImport, toYaml } from '#domain/impex';
import { restoreProject, type RestoreProgress } from '#domain/lifecycle';
import { setPlan } from '../helpers/plans.ts';
import { copyTable } from '../helpers/table-copy.ts';
import { invoke } from './in-process.ts';
import { document } from './scale-document.ts';

/**
 * `npm run bench:restore`: the restore drill of docs/restore.md on DynamoDB Local.
 * A project of DRILL_SERVICES services (default 50,000; a floor per 10, 20 networks, built by the
 * import job; DRILL_CONNECTIONS=1 adds the scale bench's 3 connections per service) and another
 * project; the table copied whole into a second table, the stand-in for the point-in-time restore;
 * then a script gone wrong in the live table (half the services' items deleted, a thousand others
 * changed), and the copy step (`restoreProject`, what `npm run admin -- restore-project` runs): a dry
 * run, the apply, and a second dry run that must find nothing left to write. Budget: the apply of a
 * 50,000-service project under 15 minutes.
 */
const N = Number(process.env.DRILL_SERVICES ?? 50_000);
const WITH_CONNECTIONS = process.env.DRILL_CONNECTIONS === '1';
const BUDGET_MS = 15 * 60_000;
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const n = (x: number) => x.toLocaleString('en');

const dataDir = await mkdtemp(join(tmpdir(), 'infra-catalog-restore-drill-'));
const stack = await startLocalStack({
  inMemory: true,
  withoutHttp: true,
  env: {
    TABLE_NAME: `restore-drill-${Date.now()}`,
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
const live = stack.config.TABLE_NAME;
const restored = `${live}-restored`;
let last = 0;
/** A line every few seconds while a long phase runs, as the admin command prints. */
const progress = (started: number) => (p: RestoreProgress) => {
  if (performance.now() - last < 5_000) return;
  last = performance.now();
  console.log(
    `  [${s(performance.now() - started)}] ${p.phase}: ${n(p.read)} items read${p.toWrite ? `, ${n(p.written)} of ${n(p.toWrite)} written` : ''}`,
  );
};
try {
  const email = `drill-${Date.now()}@example.com`;
  await invoke('auth', 'POST', '/auth/register', 'POST /auth/register', {
    body: { email, password: 'correct horse battery' },
  });
  const token = (
    await invoke('auth', 'POST', '/auth/login', 'POST /auth/login', {
      body: { email, password: 'correct horse battery' },
    })
  ).body.access_token as string;
  const ctx = appContext({ actor: await authenticate(token, appContext()) });
  await setPlan(ctx.actor!.account.id, 'Enterprise+');
  const project = async (name: string) => {
    const p = await invoke('projects', 'POST', '/projects', 'POST /projects', { token, body: { name } });
    const e = await invoke('environments', 'POST', '/environments', 'POST /environments', {
      token,
      body: { name: 'prod', project_id: p.body.id },
    });
    return { projectId: p.body.id as string, envId: e.body.id as string };
  };
  const damagedProject = await project('damaged');
  const otherProject = await project('other');
  await invoke('services', 'POST', '/services', 'POST /services', {
    token,
    body: { project_id: otherProject.projectId, environment_id: otherProject.envId, name: 'bystander' },
  });

  // The project, built by the import job (run in this process by the local queues).
  let t = performance.now();
  const uploadId = crypto.randomUUID();
  await putDocument(
    `imports/${damagedProject.projectId}/${uploadId}`,
    await toYaml(document(N, { connections: WITH_CONNECTIONS })),
    'application/yaml',
  );
  const imported = await startImport(ctx, {
    project_id: damagedProject.projectId,
    environment_id: damagedProject.envId,
    upload_id: uploadId,
  });
  await stack.queues.drain();
  const record = await recordById(imported.record_id);
  if (record?.status !== 'succeeded') throw new Error(`the import ${record?.status}: ${record?.error}`);
  const services = await queryPrefix<{ PK: string; SK: string; id: string }>(
    damagedProject.projectId,
    keys.servicePrefix(damagedProject.envId),
  );
  console.log(
    `project of ${n(services.length)} services${WITH_CONNECTIONS ? `, ${n(3 * N)} connections` : ''}, ${n(N / 10)} floors, 20 networks: built by the import in ${s(performance.now() - t)}`,
  );

  // The point-in-time restore's stand-in: the whole table copied into a second one.
  t = performance.now();
  const copied = await copyTable(live, restored);
  console.log(`restored copy (second table, ${n(copied)} items): ${s(performance.now() - t)}`);

  // A script gone wrong: every other service's item and listing deleted, a thousand others changed behind the API's back.
  const listings = await queryPrefix<{ PK: string; SK: string; id: string }>(
    damagedProject.projectId,
    keys.listingPrefix('SERVICE', damagedProject.envId),
  );
  const doomed = new Set(services.filter((_, i) => i % 2 === 0).map((x) => x.id));
  await batchWrite(
    [...services, ...listings].filter((x) => doomed.has(x.id)).map((x) => ({ delete: { PK: x.PK, SK: x.SK } })),
  );
  const changed = services.filter((x) => !doomed.has(x.id)).slice(0, 1000);
  await batchWrite(changed.map((x) => ({ put: { ...x, port: 1, description: 'overwritten by a script' } })));
  console.log(`damage: ${n(doomed.size)} services deleted (items and listings), ${n(changed.length)} changed`);

  t = performance.now();
  const dry = await restoreProject(ctx, {
    projectId: damagedProject.projectId,
    fromTable: restored,
    apply: false,
    onProgress: progress(t),
  });
  console.log(`dry run: ${n(dry.put)} items to put, ${n(dry.deleted)} to delete: ${s(performance.now() - t)}`);

  const otherBefore = JSON.stringify(await queryPrefix(otherProject.projectId, ''));
  t = performance.now();
  const applied = await restoreProject(ctx, {
    projectId: damagedProject.projectId,
    fromTable: restored,
    restorePoint: new Date().toISOString(),
    apply: true,
    onProgress: progress(t),
  });
  const ms = performance.now() - t;
  console.log(
    `restore --apply: ${n(applied.put)} items put, ${n(applied.deleted)} deleted, listings rebuilt (${applied.listings!.written} written, ${applied.listings!.removed} removed), audit entry: ${s(ms)} (budget < 15 minutes at 50,000) ${N >= 50_000 ? (ms < BUDGET_MS ? 'OK' : 'OVER') : '(reference: the budget is for 50,000)'}`,
  );

  t = performance.now();
  const again = await restoreProject(ctx, { projectId: damagedProject.projectId, fromTable: restored, apply: false });
  const otherSame = JSON.stringify(await queryPrefix(otherProject.projectId, '')) === otherBefore;
  console.log(
    `verification: a second dry run finds ${n(again.put)} to put, ${n(again.deleted)} to delete (${s(performance.now() - t)}); the other project ${otherSame ? 'untouched' : 'CHANGED'}`,
  );
  if (again.put || again.deleted || !otherSame) process.exitCode = 1;
} finally {
  // As the runbook's last step: the restored copy deleted.
  await ddb()
    .send(new DeleteTableCommand({ TableName: restored }))
    .catch(() => undefined);
  await stack.stop();
  await rm(dataDir, { recursive: true, force: true });
}
process.exit(process.exitCode ?? 0);
