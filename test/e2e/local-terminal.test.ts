import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { testDynamoEndpoint } from '../helpers/dynamo.ts';
import { TSX_IMPORT } from '../helpers/tsx.ts';

/**
 * What `npm start` prints. One readable line per request, never a query string (it
 * may carry a token); the EMF metric lines of the cloud's logs only when asked for.
 */
const ROOT = join(import.meta.dirname, '..', '..');

/** Runs `npm start`'s entry point on the test run's DynamoDB Local, sends `paths`, stops it; answers what it printed. */
async function terminalOf(env: Record<string, string>, paths: string[]): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'infra-catalog-start-'));
  const { LOG_LEVEL: _, POWERTOOLS_METRICS_DISABLED: __, ...inherited } = process.env;
  const child = spawn(process.execPath, [...TSX_IMPORT, 'infra/local/main.ts'], {
    cwd: ROOT,
    env: {
      ...inherited,
      PORT: '0',
      LOCAL_DATA_DIR: dataDir,
      TABLE_NAME: `test-${randomUUID()}`,
      DYNAMODB_ENDPOINT: await testDynamoEndpoint(),
      LOCAL_DEADLINE_SWEEP_SECONDS: '0',
      ...env,
    },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start printed no address: ${out}`)), 60_000);
      child.stdout.on('data', () => {
        const m = /running at (http:\/\/\S+)/.exec(out);
        if (m) clearTimeout(timer), resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`npm start exited ${code}: ${out}`)));
    });
    for (const path of paths) expect((await fetch(url + path)).status).toBeLessThan(500);
    await new Promise((r) => setTimeout(r, 200)); // the lines written as the answers finished
    return out;
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    await rm(dataDir, { recursive: true, force: true });
  }
}

describe('the npm start terminal', () => {
  it('shows one readable line per request (method, path without its query, status, duration) and no EMF lines', async () => {
    const out = await terminalOf({}, [
      '/plans',
      '/impex/status/00000000-0000-4000-8000-000000000000?token=secret-token-value',
    ]);
    expect(out).toMatch(/^\d\d:\d\d:\d\d GET \/plans 200 \d+ ms$/m);
    expect(out).toMatch(/^\d\d:\d\d:\d\d GET \/impex\/status\/0{8}-0000-4000-8000-0{12} 401 \d+ ms$/m);
    expect(out).not.toContain('secret-token-value');
    expect(out).not.toContain('"_aws"');
  });

  it('prints the EMF lines when POWERTOOLS_METRICS_DISABLED=false asks for them', async () => {
    const out = await terminalOf({ POWERTOOLS_METRICS_DISABLED: 'false' }, ['/plans']);
    expect(out).toContain('"_aws"');
    expect(out).toMatch(/"route":"GET \/plans"/);
  });
});
