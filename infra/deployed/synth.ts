import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

/** What a synthesis reads (the app, the functions' sources, the dashboard's, the lockfile), relative to the repository. */
const SYNTH_INPUTS = ['infra/cdk', 'functions', 'shared', 'clients/typescript/src', 'web/src', 'web/public', 'web/index.html', 'package-lock.json', 'cdk.json', 'tsconfig.json'];
/** Written into an assembly once its synthesis finished: the settings it was made with; its time, when. */
const STAMP = '.synth-settings';

function newestChange(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).filter((f) => f !== 'node_modules').map((f) => newestChange(join(path, f))));
}

/**
 * `synthesize`, unless `outdir` holds an assembly made with the same settings after the last change to
 * any of its inputs (start:deployed's restart need not wait for `cdk synth`). Returns whether it synthesized.
 */
export async function synthesizeUnlessCurrent(outdir: string, env: Record<string, string> = {}): Promise<boolean> {
  const stamp = join(outdir, STAMP);
  const settings = JSON.stringify(env);
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === settings) {
    const made = statSync(stamp).mtimeMs;
    if (SYNTH_INPUTS.every((p) => newestChange(join(ROOT, p)) < made)) return false;
  }
  rmSync(stamp, { force: true }); // a synthesis that fails midway leaves no assembly that looks current
  await synthesize(outdir, env);
  writeFileSync(stamp, settings);
  return true;
}
