import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { startLocalStack, type LocalStack } from '../../infra/local/stack.ts';
import { testDynamoEndpoint } from './dynamo.ts';
import { runTmpDir } from './run-tmp.ts';
import type { Clock } from '#shared/context';
import { config } from '#shared/config';
import { resetClients } from '#shared/clients';
import { configureFaults } from '#shared/faults';

export interface TestStack extends LocalStack {
  dataDir: string;
}

/**
 * Every test request comes from 127.0.0.1, and most test files sign in far more than SPEC's 10 logins
 * a minute per address: the per-address limits are lifted unless a test file sets them itself.
 */
const UNLIMITED_SIGN_IN = { LOGIN_RATE_LIMIT_PER_MINUTE: '1000000', PASSWORD_RESET_RATE_LIMIT_PER_MINUTE: '1000000' };

/**
 * A run hashes and checks some 3,000 passwords (two per `signUp`): at the standard cost that was 40 CPU-s, 5 % of the
 * run. Test stacks hash at the light cost (the same code and algorithm; docs/decisions/1018); auth.test.ts holds the
 * standard one, and the deployed suite runs it (the cloud refuses the light one).
 */
const LIGHT_HASHING = { PASSWORD_HASH_COST: 'light' };

type StackOptions = { withoutHttp?: boolean; clock?: Clock; withS3?: boolean; ownStack?: boolean };

/** A fresh table and data dir on the run's DynamoDB Local, for one test file. */
export async function startTestStack(env: Record<string, string> = {}, opts: StackOptions = {}): Promise<TestStack> {
  const endpoint = await testDynamoEndpoint();
  // One stack at a time in a process (its configuration and clients are the process's): a shared one left
  // running by an earlier file goes first.
  await stopSharedStack();
  const dataDir = await mkdtemp(join(runTmpDir(), 'infra-catalog-test-'));
  const stack = await startLocalStack({
    dynamoEndpoint: endpoint,
    withoutS3: !opts.withS3,
    withoutHttp: opts.withoutHttp,
    clock: opts.clock,
    // No deadline timer: tests that need the sweep run it themselves, with their clock.
    env: {
      TABLE_NAME: `test-${randomUUID()}`,
      LOCAL_DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'silent',
      LOCAL_DEADLINE_SWEEP_SECONDS: '0',
      LOCAL_OUTBOX_POLL_MS: '0',
      // No table stream reader (live changes) unless a test follows an environment: it asks for one.
      LOCAL_STREAM_POLL_MS: '0',
      LOCAL_WEBHOOK_RETRY_SWEEP_SECONDS: '0',
      ...UNLIMITED_SIGN_IN,
      ...LIGHT_HASHING,
      ...env,
    },
  });
  return {
    ...stack,
    dataDir,
    async stop() {
      await stack.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The stack this worker's files share (vitest.config.ts's `e2e` project sets TEST_SHARED_STACKS: its files
 * run one after another in a process that outlives each of them). Files asking for the same environment
 * and options get the same stack, told apart by the fresh accounts and projects every test makes.
 */
let shared: { key: string; stack: TestStack } | undefined;

async function stopSharedStack(): Promise<void> {
  const was = shared;
  shared = undefined;
  await was?.stack.stop();
}

/**
 * Each key's table in this process: a shared stack started again after another key's (files of several keys take
 * turns in a worker) finds its table made and its plans seeded, as its key's earlier files left them (about half
 * of a stack's start, most of it DynamoDB Local's CreateTable).
 */
const sharedTables = new Map<string, string>();
const sharedTable = (key: string) => {
  if (!sharedTables.has(key)) sharedTables.set(key, `test-${randomUUID()}`);
  return sharedTables.get(key)!;
};

const keyOf = (env: Record<string, string>, opts: StackOptions) =>
  JSON.stringify([Object.entries(env).sort(([a], [b]) => a.localeCompare(b)), !!opts.withoutHttp, !!opts.withS3]);

/** What a file changed in the process is undone before the next file gets the stack: faults switched on, its clients. */
function afterSharedFile(): void {
  configureFaults('');
  resetClients();
}

/**
 * Starts a stack for the current test file and stops it afterwards; in a worker that shares stacks,
 * the file gets the worker's stack for its environment and options instead (started by the first file
 * that asks), left running for the next file once its work is drained. A file with its own clock, or
 * `ownStack` (it reads the whole table, or must see it empty), always gets a stack of its own.
 */
export function useTestStack(env: Record<string, string> = {}, opts: StackOptions = {}) {
  const ref = {} as { stack: TestStack };
  const sharing = process.env.TEST_SHARED_STACKS === '1' && !opts.clock && !opts.ownStack;
  let key: string | undefined;
  beforeAll(async () => {
    // The key is taken when the stack is wanted, not when the file is loaded: a file may fill `env` in a
    // hook of its own before this one (a stub's address, known once it listens). Taken earlier, such a file
    // got the stack of a file without those settings.
    key = sharing ? keyOf(env, opts) : undefined;
    if (key === undefined) {
      ref.stack = await startTestStack(env, opts);
      return;
    }
    // Still the process's configuration? (A file may have started another stack or re-read it.)
    if (shared?.key !== key || config() !== shared.stack.config) {
      const stack = await startTestStack({ TABLE_NAME: sharedTable(key), ...env }, opts);
      shared = { key, stack };
    }
    ref.stack = shared.stack;
  });
  afterAll(async () => {
    if (key === undefined) return ref.stack?.stop();
    if (!ref.stack || shared?.stack !== ref.stack) return;
    try {
      await ref.stack.queues.drain();
    } finally {
      afterSharedFile();
    }
  });
  return ref;
}
