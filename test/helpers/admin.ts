import { execFile } from 'node:child_process';

/** `npm run admin -- <args>` as a separate process, with the given configuration (nothing of the test's own table configuration inherited). */
export function admin(args: string[], env: Record<string, string | undefined>) {
  const childEnv: Record<string, string | undefined> = {
    ...process.env,
    DYNAMODB_ENDPOINT: undefined,
    TABLE_NAME: undefined,
    LOG_LEVEL: 'silent',
    ...env,
  };
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['infra/local/admin.ts', ...args],
      { env: childEnv as NodeJS.ProcessEnv, timeout: 110_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
