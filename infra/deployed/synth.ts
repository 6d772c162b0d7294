import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * The secret the seeding function reads the first staff account from (`bootstrapAdminSecretArn`, as
 * `cdk deploy -c bootstrapAdminSecretArn=…`): synthesized in when BOOTSTRAP_ADMIN_EMAIL/PASSWORD are
 * given, and held by the local Secrets Manager as `{ "email", "password" }`.
 */
export const LOCAL_ADMIN_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bootstrap-admin-local1';
export const adminSecret = (email: string, password: string) => JSON.stringify({ email, password });

/**
 * `cdk synth` of the stack (infra/cdk/app.ts, as `npm run synth`) into `outdir`; `env` reaches the
 * app (BOOTSTRAP_ADMIN_SECRET_ARN: the seeding function's first staff account, from a local secret).
 */
export async function synthesize(outdir: string, env: Record<string, string> = {}): Promise<void> {
  await promisify(execFile)(join(ROOT, 'node_modules/.bin/cdk'), ['synth', '--quiet', '--output', outdir], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
}
