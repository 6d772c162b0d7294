import { spawn } from 'node:child_process';
import { delimiter, dirname, join } from 'node:path';

/** The real `infracat` binary (node_modules/.bin/infracat, as `npx infracat` runs it after `npm ci`). */
export const INFRACAT_BIN = join(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'infracat');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** Wall-clock milliseconds the process ran. */
  ms: number;
}

const INHERITED = [
  'INFRACAT_URL',
  'INFRACAT_EMAIL',
  'INFRACAT_PASSWORD',
  'INFRACAT_TOTP_CODE',
  'INFRACAT_PROJECT',
  'INFRACAT_ENVIRONMENT',
  'INFRACAT_TIMEOUT',
  'INFRACAT_API_KEY',
];

/** Runs `infracat args…` with only the INFRACAT_* variables given in `env` and a config folder; `input` goes to its stdin. */
export function runInfracat(
  args: string[],
  opts: { configDir: string; env?: Record<string, string>; input?: string },
): Promise<Run> {
  const env: Record<string, string | undefined> = { ...process.env, INFRACAT_CONFIG_DIR: opts.configDir };
  for (const k of INHERITED) delete env[k];
  Object.assign(env, opts.env);
  env.PATH = `${dirname(process.execPath)}${delimiter}${env.PATH ?? ''}`; // the pinned Node runs the bin's `#!/usr/bin/env node`
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(INFRACAT_BIN, args, { env, cwd: dirname(opts.configDir), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, ms: Date.now() - started }));
    child.stdin.end(opts.input ?? '');
  });
}
