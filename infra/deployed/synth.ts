import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
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
/**
 * The Stripe secret start:deployed is synthesized with (as `cdk deploy -c stripeSecretArn=…`): a run
 * whose template names it holds it, with keys of its own, and serves Stripe's API and hosted pages
 * itself (stand-ins/stripe.ts), so paid plans are bought there as in the cloud.
 */
export const LOCAL_STRIPE_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:stripe-local1';
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

/**
 * What a synthesis reads, relative to the repository: the app and what it imports (infra/cdk, the site's
 * policy, the dashboard's build), the functions' and the dashboard's sources, the lockfile (every
 * package's version), and the context files (cdk.json, cdk.context.json when there is one).
 */
export const SYNTH_INPUTS = [
  'infra/cdk',
  'infra/web-policy.ts',
  'infra/build/web-build.ts',
  'functions',
  'shared',
  'clients/typescript/src',
  'web',
  'package-lock.json',
  'package.json',
  'tsconfig.json',
  'cdk.json',
  'cdk.context.json',
];
/** The environment the app reads besides its context (infra/cdk/app.ts). */
const SYNTH_ENV = ['BOOTSTRAP_ADMIN_SECRET_ARN', 'STRIPE_SECRET_ARN'] as const;
/** Written into an assembly once its synthesis finished: the fingerprint of what it was made from. */
const STAMP = '.synth-fingerprint';

/**
 * The fingerprint of a synthesis: a hash of every input file's path and content under `root` (folders
 * walked in name order, leaving out node_modules, build output and dot files; a missing input counts as
 * missing) and of the settings it is given (the environment the app reads). A change of content changes
 * it; a touched file, a checkout that restores the same content, or another clone of it does not.
 */
export function synthFingerprint(
  settings: Record<string, string | undefined>,
  root = ROOT,
  inputs: readonly string[] = SYNTH_INPUTS,
): string {
  const hash = createHash('sha256');
  hash
    .update(
      JSON.stringify(
        Object.entries(settings)
          .filter(([, v]) => v !== undefined)
          .sort(([a], [b]) => a.localeCompare(b)),
      ),
    )
    .update('\0');
  const walk = (rel: string) => {
    const abs = join(root, rel);
    if (!existsSync(abs)) return void hash.update(`${rel}\0missing\0`);
    if (!statSync(abs).isDirectory()) return void hash.update(`${rel}\0`).update(readFileSync(abs)).update('\0');
    for (const name of readdirSync(abs).sort()) {
      if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
      walk(`${rel}/${name}`);
    }
  };
  for (const input of inputs) walk(input);
  return hash.digest('hex');
}

/** Whether `outdir` holds a finished assembly stamped with `fingerprint`. */
export function assemblyIsCurrent(outdir: string, fingerprint: string): boolean {
  const stamp = join(outdir, STAMP);
  return existsSync(join(outdir, 'manifest.json')) && existsSync(stamp) && readFileSync(stamp, 'utf8') === fingerprint;
}

/**
 * `synthesize`, unless `outdir` holds an assembly made from the same inputs and settings (its fingerprint):
 * start:deployed's restart need not wait for `cdk synth`. Returns whether it synthesized.
 */
export async function synthesizeUnlessCurrent(outdir: string, env: Record<string, string> = {}): Promise<boolean> {
  const effective = { ...process.env, ...env };
  // Taken before the synthesis: a source changed while it runs makes the next start synthesize again.
  const fingerprint = synthFingerprint(Object.fromEntries(SYNTH_ENV.map((k) => [k, effective[k]])));
  if (assemblyIsCurrent(outdir, fingerprint)) return false;
  const stamp = join(outdir, STAMP);
  rmSync(stamp, { force: true }); // a synthesis that fails midway leaves no assembly that looks current
  await synthesize(outdir, env);
  writeFileSync(stamp, fingerprint);
  return true;
}
