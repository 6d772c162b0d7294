import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack';
import { client, PASSWORD, signUp, uniqueEmail } from '../helpers/http';
import { login } from '../helpers/sign-in';

const ref = useTestStack();
const api = client(() => ref.stack.url);

const TSX = join(process.cwd(), 'node_modules', 'tsx', 'dist', 'cli.mjs');

/** `npm run admin -- <args>` as a separate process, with the given configuration. */
function admin(args: string[], env: Record<string, string | undefined>) {
  const childEnv: Record<string, string | undefined> = { ...process.env, DYNAMODB_ENDPOINT: undefined, TABLE_NAME: undefined, LOG_LEVEL: 'silent', ...env };
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [TSX, 'infra/local/admin.ts', ...args], { env: childEnv as NodeJS.ProcessEnv, timeout: 110_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const tableEnv = () => ({ DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, TABLE_NAME: ref.stack.config.TABLE_NAME, LOCAL_DATA_DIR: ref.stack.dataDir });

// Each run is a fresh process (and, for the local-data case, a fresh DynamoDB Local): allow for a busy machine.
describe('npm run admin -- create-staff', { timeout: 120_000 }, () => {
  it('creates a staff account in the configured table, which can then use the staff routes', async () => {
    const email = uniqueEmail('ops');
    const run = await admin(['create-staff', '--email', email, '--password', 'ops passphrase 1'], tableEnv());
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Created staff account ${email}`);
    const signIn = await login(api, email, 'ops passphrase 1');
    expect(signIn.status).toBe(200);
    const users = await api.get('/admin/users', { token: signIn.body.access_token });
    expect(users.status).toBe(200);
    expect(users.body.find((u: { email: string }) => u.email === email)).toMatchObject({ is_staff: true, is_superuser: true, account_type: 'staff' });

    const again = await admin(['create-staff', '--email', email, '--password', 'another passphrase'], tableEnv());
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already exists');
    expect((await login(api, email, 'ops passphrase 1')).status).toBe(200); // left unchanged
  });

  it('leaves an existing non-staff account alone and exits 1', async () => {
    const user = await signUp(api);
    const run = await admin(['create-staff', '--email', user.email, '--password', PASSWORD], tableEnv());
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is not staff');
    const me = await api.get('/auth/me', { token: user.token });
    expect(me.body.is_staff).toBe(false);
  });

  it('refuses a password failing the policy (exit 1) and bad arguments (exit 2)', async () => {
    const weak = await admin(['create-staff', '--email', uniqueEmail('ops'), '--password', 'short'], tableEnv());
    expect(weak.code).toBe(1);
    expect(weak.stderr).toContain('Password must be at least 8 characters long');
    expect((await admin(['create-staff', '--email', 'not-an-address', '--password', PASSWORD], tableEnv())).code).toBe(2);
    expect((await admin(['create-staff', '--email', uniqueEmail('ops')], tableEnv())).code).toBe(2);
    expect((await admin(['delete-everything'], tableEnv())).code).toBe(2);
  });

  it('without DYNAMODB_ENDPOINT works on the local runtime data under LOCAL_DATA_DIR', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'admin-cli-'));
    try {
      const email = uniqueEmail('local');
      const first = await admin(['create-staff', '--email', email, '--password', 'ops passphrase 1'], { LOCAL_DATA_DIR: dataDir });
      expect(first.code).toBe(0);
      expect(first.stdout).toContain('Created staff account');
      // a second run (a new DynamoDB Local on the same data) finds it
      const second = await admin(['create-staff', '--email', email, '--password', 'ops passphrase 1'], { LOCAL_DATA_DIR: dataDir });
      expect(second.stdout).toContain('already exists');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
