import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDeployed, type Deployed, type DeployedOptions } from '../../infra/deployed/start';
import { adminSecret, LOCAL_ADMIN_SECRET_ARN, LOCAL_STRIPE_SECRET_ARN, synthesize } from '../../infra/deployed/synth';

/**
 * What start:deployed's suites pass through to every function (as a tester would): the per-address
 * sign-in limits lifted (every request comes from 127.0.0.1), webhooks allowed to loopback, the outbox's
 * resend sweep 5 s after a write.
 */
export const DEPLOYED_TEST_ENV = {
  LOGIN_RATE_LIMIT_PER_MINUTE: '1000000',
  PASSWORD_RESET_RATE_LIMIT_PER_MINUTE: '1000000',
  WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1',
  LOG_LEVEL: 'warn',
  POWERTOOLS_METRICS_DISABLED: 'true',
  // An outbox item the stream gave up on is handed over again by the next scheduled sweep 5 s on, not 15 minutes.
  OUTBOX_RESEND_AFTER_SECONDS: '5',
};

/** The first staff account the suites' stacks are deployed with (the seeding function reads it from Secrets Manager). */
export const DEPLOYED_STAFF = { email: 'staff@deployed.example.com', password: 'correct horse battery staple' };

/**
 * A synthesized stack in a folder of its own (removed by `remove`), as start:deployed synthesizes it: with the
 * staff account's secret, and Stripe as payment provider through the local Stripe secret (the run serves Stripe's
 * API and pages itself); `TEST_CDK_OUT` names an existing one instead (kept; synthesize it with
 * BOOTSTRAP_ADMIN_SECRET_ARN=LOCAL_ADMIN_SECRET_ARN and STRIPE_SECRET_ARN=LOCAL_STRIPE_SECRET_ARN).
 */
export async function synthesizedStack(): Promise<{ dir: string; remove: () => Promise<void> }> {
  if (process.env.TEST_CDK_OUT) return { dir: process.env.TEST_CDK_OUT, remove: async () => {} };
  const dir = await mkdtemp(join(tmpdir(), 'infra-catalog-cdk-out-'));
  await synthesize(dir, { BOOTSTRAP_ADMIN_SECRET_ARN: LOCAL_ADMIN_SECRET_ARN, STRIPE_SECRET_ARN: LOCAL_STRIPE_SECRET_ARN });
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export interface TestDeployed extends Deployed {
  dataDir: string;
  /** Every line the functions and stand-ins logged. */
  lines: string[];
}

/** start:deployed on a fresh in-memory DynamoDB Local and data folder, on any free port; `DEPLOYED_LOG=1` prints what it logs (debugging). */
export async function startTestDeployed(cdkOut: string, opts: Partial<DeployedOptions> = {}): Promise<TestDeployed> {
  const dataDir = await mkdtemp(join(tmpdir(), 'infra-catalog-deployed-'));
  const lines: string[] = [];
  const deployed = await startDeployed({
    cdkOut, port: 0, dataDir, inMemory: true, env: { PATH: process.env.PATH, ...DEPLOYED_TEST_ENV },
    extraSecrets: { [LOCAL_ADMIN_SECRET_ARN]: adminSecret(DEPLOYED_STAFF.email, DEPLOYED_STAFF.password) }, log: (line) => { lines.push(line); if (process.env.DEPLOYED_LOG) console.log(line); }, ...opts,
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
