import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { DeployedOptions } from '../../infra/deployed/deployed-options.ts';
import { startDeployed, type Deployed } from '../../infra/deployed/start.ts';
import {
  adminSecret,
  LOCAL_ADMIN_SECRET_ARN,
  LOCAL_STRIPE_SECRET_ARN,
  synthesizeUnlessCurrent,
} from '../../infra/deployed/synth.ts';
import { testDynamoEndpoint } from './dynamo.ts';
import { runTmpDir } from './run-tmp.ts';

/**
 * What start:deployed's suites pass through to every function (as a tester would): the per-address
 * sign-in limits lifted (every request comes from 127.0.0.1), webhooks allowed to loopback, the outbox's
 * resend sweep 5 s after a write, the table stream's retry back-off scaled (the run reads it, not the functions).
 */
export const DEPLOYED_TEST_ENV = {
  LOGIN_RATE_LIMIT_PER_MINUTE: '1000000',
  PASSWORD_RESET_RATE_LIMIT_PER_MINUTE: '1000000',
  WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1',
  LOG_LEVEL: 'warn',
  POWERTOOLS_METRICS_DISABLED: 'true',
  // An outbox item the stream gave up on is handed over again by the next scheduled sweep 5 s on, not 15 minutes.
  OUTBOX_RESEND_AFTER_SECONDS: '5',
  // A stream batch the function keeps failing is retried 10 times 5 ms doubling to 160 ms apart, not 0.1 s to 3.2 s (19 s).
  DEPLOYED_STREAM_BACKOFF_SCALE: '0.05',
};

/** The first staff account the suites' stacks are deployed with (the seeding function reads it from Secrets Manager). */
export const DEPLOYED_STAFF = { email: 'staff@deployed.example.com', password: 'correct horse battery staple' };

/** Where the suites' synthesis is kept: beside the other caches of the installed packages (a fresh clone synthesizes once). */
const SHARED_CDK_OUT = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'infra-catalog-test-cdk-out');

/** Runs `work` while holding `lock` (a folder, made atomically) against the other test processes; a holder that died leaves it to the next. */
async function holding<T>(lock: string, work: () => Promise<T>): Promise<T> {
  await mkdir(dirname(lock), { recursive: true });
  for (const started = Date.now(); ; ) {
    try {
      await mkdir(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(await readFile(join(lock, 'pid'), 'utf8').catch(() => ''));
      const alive =
        holder > 0 &&
        (() => {
          try {
            return process.kill(holder, 0);
          } catch {
            return false;
          }
        })();
      if (holder > 0 && !alive) await rm(lock, { recursive: true, force: true });
      else if (Date.now() - started > 600_000)
        throw new Error(`${lock} held for 10 minutes (pid ${holder || 'unknown'})`);
      else await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    await writeFile(join(lock, 'pid'), String(process.pid));
    return await work();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/**
 * The synthesized stack (with the staff account's secret, and Stripe as payment provider through the local Stripe secret: the run serves Stripe's API and pages itself) every file of the suite starts: one synthesis
 * for all of them, kept for the next run until an input changes (infra/deployed/synth.ts
 * `synthesizeUnlessCurrent`); `remove` leaves it. `TEST_CDK_OUT` names another one instead
 * (synthesize it with BOOTSTRAP_ADMIN_SECRET_ARN=LOCAL_ADMIN_SECRET_ARN and STRIPE_SECRET_ARN=LOCAL_STRIPE_SECRET_ARN).
 */
export async function synthesizedStack(): Promise<{ dir: string; remove: () => Promise<void> }> {
  if (process.env.TEST_CDK_OUT) return { dir: process.env.TEST_CDK_OUT, remove: async () => {} };
  const settings = { BOOTSTRAP_ADMIN_SECRET_ARN: LOCAL_ADMIN_SECRET_ARN, STRIPE_SECRET_ARN: LOCAL_STRIPE_SECRET_ARN };
  await holding(`${SHARED_CDK_OUT}.lock`, () => synthesizeUnlessCurrent(SHARED_CDK_OUT, settings));
  return { dir: SHARED_CDK_OUT, remove: async () => {} };
}

export interface TestDeployed extends Deployed {
  dataDir: string;
  /** Every line the functions and stand-ins logged. */
  lines: string[];
}

/**
 * start:deployed on fresh tables in the run's DynamoDB Local (named apart by a prefix of their own: a JVM started
 * for each run paid its warm-up again) and a fresh data folder, on any free port; `DEPLOYED_LOG=1` prints what it
 * logs (debugging).
 */
export async function startTestDeployed(cdkOut: string, opts: Partial<DeployedOptions> = {}): Promise<TestDeployed> {
  const dataDir = await mkdtemp(join(runTmpDir(), 'infra-catalog-deployed-'));
  const lines: string[] = [];
  const deployed = await startDeployed({
    cdkOut,
    port: 0,
    dataDir,
    dynamoEndpoint: await testDynamoEndpoint(),
    tablePrefix: `deployed-${randomUUID()}-`,
    env: { PATH: process.env.PATH, ...DEPLOYED_TEST_ENV },
    extraSecrets: { [LOCAL_ADMIN_SECRET_ARN]: adminSecret(DEPLOYED_STAFF.email, DEPLOYED_STAFF.password) },
    log: (line) => {
      lines.push(line);
      if (process.env.DEPLOYED_LOG) console.log(line);
    },
    ...opts,
  });
  return {
    ...deployed,
    dataDir,
    lines,
    async stop() {
      await deployed.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
