import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(import.meta.dirname, '..', '..');

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
