import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { startLocalStack, type LocalStack } from '../../infra/local/stack';
import type { Clock } from '#shared/context';

export interface TestStack extends LocalStack {
  dataDir: string;
}

/**
 * Every test request comes from 127.0.0.1, and most test files sign in far more than SPEC's 10 logins
 * a minute per address: the per-address limits are lifted unless a test file sets them itself.
 */
const UNLIMITED_SIGN_IN = { LOGIN_RATE_LIMIT_PER_MINUTE: '1000000', PASSWORD_RESET_RATE_LIMIT_PER_MINUTE: '1000000' };

/** A fresh table and data dir on the run's DynamoDB Local, for one test file. */
export async function startTestStack(env: Record<string, string> = {}, opts: { withoutHttp?: boolean; clock?: Clock; withS3?: boolean } = {}): Promise<TestStack> {
  const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('TEST_DYNAMODB_ENDPOINT is not set: run tests through vitest (global setup starts DynamoDB Local)');
  const dataDir = await mkdtemp(join(tmpdir(), 'infra-catalog-test-'));
  const stack = await startLocalStack({
    dynamoEndpoint: endpoint,
    withoutS3: !opts.withS3,
    withoutHttp: opts.withoutHttp,
    clock: opts.clock,
    // No deadline timer: tests that need the sweep run it themselves, with their clock.
    env: { TABLE_NAME: `test-${randomUUID()}`, LOCAL_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', LOCAL_DEADLINE_SWEEP_SECONDS: '0', LOCAL_OUTBOX_POLL_MS: '0', LOCAL_WEBHOOK_RETRY_SWEEP_SECONDS: '0', ...UNLIMITED_SIGN_IN, ...env },
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

/** Starts a stack for the current test file and stops it afterwards. */
export function useTestStack(env: Record<string, string> = {}, opts: { withoutHttp?: boolean; clock?: Clock; withS3?: boolean } = {}) {
  const ref = {} as { stack: TestStack };
  beforeAll(async () => {
    ref.stack = await startTestStack(env, opts);
  });
  afterAll(async () => {
    await ref.stack?.stop();
  });
  return ref;
}
