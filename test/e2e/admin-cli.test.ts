import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { admin } from '../helpers/admin.ts';
import { client, PASSWORD, signUp, uniqueEmail } from '../helpers/http.ts';
import { login } from '../helpers/sign-in.ts';
import { createFloor, ownerWithEnv } from '../helpers/catalog.ts';
import { keys } from '#db/keys';
import { queryPrefix } from '#db/query';
import { deleteItem } from '#db/items';

// Its backfill reads and counts the whole table: a stack of its own, not one shared with other files.
const ref = useTestStack({}, { ownStack: true });
const api = client(() => ref.stack.url);

const tableEnv = () => ({
  DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT,
  TABLE_NAME: ref.stack.config.TABLE_NAME,
  LOCAL_DATA_DIR: ref.stack.dataDir,
});

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
    expect(users.body.find((u: { email: string }) => u.email === email)).toMatchObject({
      is_staff: true,
      is_superuser: true,
      account_type: 'staff',
    });

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
    expect((await admin(['create-staff', '--email', 'not-an-address', '--password', PASSWORD], tableEnv())).code).toBe(
      2,
    );
    expect((await admin(['create-staff', '--email', uniqueEmail('ops')], tableEnv())).code).toBe(2);
    expect((await admin(['delete-everything'], tableEnv())).code).toBe(2);
  });

  it('without DYNAMODB_ENDPOINT works on the local runtime data under LOCAL_DATA_DIR', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'admin-cli-'));
    try {
      const email = uniqueEmail('local');
      const first = await admin(['create-staff', '--email', email, '--password', 'ops passphrase 1'], {
        LOCAL_DATA_DIR: dataDir,
      });
      expect(first.code).toBe(0);
      expect(first.stdout).toContain('Created staff account');
      // a second run (a new DynamoDB Local on the same data) finds it
      const second = await admin(['create-staff', '--email', email, '--password', 'ops passphrase 1'], {
        LOCAL_DATA_DIR: dataDir,
      });
      expect(second.stdout).toContain('already exists');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('npm run admin -- backfill-listings', { timeout: 120_000 }, () => {
  it('writes the listing items a table from before them lacks, so its lists are whole again; a second run has nothing to do', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    for (const hostname of ['bf-a', 'bf-b', 'bf-c']) await createFloor(api, token, projectId, envId, { hostname });
    const listed = async () =>
      (await api.get(`/service-floors?project_id=${projectId}&environment_id=${envId}`, { token })).body.map(
        (f: { hostname: string }) => f.hostname,
      );
    // A table written before listing items: one floor without its listing, the floors' backfill not recorded.
    const [listing] = (
      await queryPrefix<{ PK: string; SK: string; hostname: string }>(projectId, keys.listingPrefix('FLOOR', envId))
    ).filter((l) => l.hostname === 'bf-b');
    await deleteItem({ PK: listing.PK, SK: listing.SK });
    await deleteItem(keys.migration('floor-listing'));
    expect(await listed()).toEqual(['bf-a', 'bf-c']);

    const run = await admin(['backfill-listings'], tableEnv());
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/floor listings backfilled: 1 written|FLOOR: 1 listing items written/);
    expect(await listed()).toEqual(['bf-a', 'bf-b', 'bf-c']);

    const again = await admin(['backfill-listings'], tableEnv());
    expect(again.stdout).toContain('is up to date; nothing to do');
    expect((await admin(['backfill-listings', '--now'], tableEnv())).code).toBe(2);
  });
});
