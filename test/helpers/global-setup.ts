import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnDynamo, type StartingDynamo } from '../../infra/local/dynamo.ts';
import { ensureWebBuild } from '../../infra/build/web-build.ts';
import { RUN_TMP_DIR } from './run-tmp.ts';

let dynamo: StartingDynamo | undefined;

/**
 * Starts DynamoDB Local once per run; test workers inherit its endpoint through the environment and
 * wait for it to answer on their first use (test/helpers/dynamo.ts), so the files that do not use it
 * (unit, architecture, infra) run while its JVM starts. The dashboard (web/dist, which the browser
 * tests open) is built first when its sources changed.
 */
export async function setup() {
  if (dynamo) return; // one per run, whichever project's set-up comes first
  const web = ensureWebBuild();
  web.catch(() => {}); // awaited below, after DynamoDB Local is spawned
  // A database per access key: per test worker (test/helpers/worker-database.ts).
  dynamo = await spawnDynamo({ databasePerKey: true });
  await web.catch(async (err) => {
    await dynamo?.stop();
    throw err;
  });
  process.env.TEST_DYNAMODB_ENDPOINT = dynamo.endpoint;
  // The stacks' data dirs of this run, whichever worker made them (test/helpers/run-tmp.ts): removed at its end.
  process.env[RUN_TMP_DIR] = mkdtempSync(join(tmpdir(), 'infra-catalog-run-'));
}

export async function teardown() {
  await dynamo?.stop();
  dynamo = undefined;
  const runTmp = process.env[RUN_TMP_DIR];
  if (runTmp) rmSync(runTmp, { recursive: true, force: true });
  delete process.env[RUN_TMP_DIR];
}
