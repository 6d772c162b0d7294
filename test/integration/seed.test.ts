import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mockClient } from 'aws-sdk-client-mock';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { reloadConfig } from '#shared/config';
import { appContext } from '#shared/context';
import { resetClients } from '#shared/clients';
import { queryAll } from '#db/query';
import { keys } from '#db/keys';
import { verifyPassword } from '#auth/passwords';
import { PLAN_CATALOGUE } from '#domain/billing';
import { findAccountByEmail, listAccounts } from '#domain/identity';
import { getItem, putItem } from '#db/items';
import { queryPrefix } from '#db/query';
import { LISTINGS } from '#domain/catalog';
import { ensureTable } from '../../infra/local/bootstrap.ts';
import { putConnection } from '../helpers/catalog.ts';
import { handler } from '../../functions/seed/handler.ts';
import { testDynamoEndpoint } from '../helpers/dynamo.ts';

/**
 * The seeding function as the deploy-time trigger runs it: against an empty table, as after a fresh
 * `cdk deploy` (not the test stack's, which the local bootstrap has already seeded), Secrets Manager mocked.
 */
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:catalog/bootstrap-admin-AbCdEf';
const ADMIN = { email: 'root@example.com', password: 'correct horse battery staple' };
const secretsManager = mockClient(SecretsManagerClient);

/** Points the configuration at a new, empty table (with or without the admin secret configured). */
async function freshTable(env: Record<string, string> = {}): Promise<void> {
  const endpoint = await testDynamoEndpoint();
  const c = reloadConfig({ DYNAMODB_ENDPOINT: endpoint, TABLE_NAME: `test-seed-${randomUUID()}`, ...env });
  await ensureTable(c.TABLE_NAME);
}
/** What the backfill reports on a table it has never run on: every listed kind, nothing to write. */
const FIRST_BACKFILL = Object.fromEntries(LISTINGS.map((l) => [l.name, { written: 0, removed: 0 }]));
const planItems = () =>
  queryAll({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.plans } });

beforeAll(() => resetClients());
afterAll(() => resetClients());
beforeEach(() => secretsManager.reset());

describe('seeding function (run on deploy)', () => {
  it('seeds the plans and the staff account from the secret once; a second run changes nothing', async () => {
    await freshTable({ BOOTSTRAP_ADMIN_SECRET_ARN: SECRET_ARN });
    secretsManager
      .on(GetSecretValueCommand, { SecretId: SECRET_ARN })
      .resolves({ SecretString: JSON.stringify(ADMIN) });
    expect(await planItems()).toEqual([]);

    expect(await handler()).toEqual({ plans: 10, staff: 'created', backfilled: FIRST_BACKFILL });
    const plansAfterFirst = await planItems();
    expect(plansAfterFirst.map((p) => p.id)).toEqual(PLAN_CATALOGUE.map((p) => p.id)); // all ten, in the documented order
    expect(plansAfterFirst.map((p) => p.name)).toContain('Free');
    const staff = (await findAccountByEmail(ADMIN.email))!;
    expect(staff).toMatchObject({
      email: ADMIN.email,
      account_type: 'staff',
      is_staff: true,
      is_superuser: true,
      admin_role: 'superuser',
      is_active: true,
    });
    expect(await verifyPassword(staff.password_hash, ADMIN.password)).toBe(true);

    expect(await handler()).toEqual({ plans: 10, staff: 'exists', backfilled: {} });
    expect(await planItems()).toEqual(plansAfterFirst); // same count, same content
    expect(await findAccountByEmail(ADMIN.email)).toEqual(staff); // same id, hash and timestamps: left unchanged
    expect((await listAccounts(appContext())).map((a) => a.id)).toEqual([staff.id]); // no second account
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('without an admin secret configured seeds only the plans and never calls Secrets Manager', async () => {
    await freshTable();
    expect(await handler()).toEqual({ plans: 10, staff: 'not configured', backfilled: FIRST_BACKFILL });
    expect(await planItems()).toHaveLength(10);
    expect(await listAccounts(appContext())).toEqual([]);
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(0);
  });

  it('fails (so the deployment fails) on a secret that is not { email, password }, without echoing it', async () => {
    await freshTable({ BOOTSTRAP_ADMIN_SECRET_ARN: SECRET_ARN });
    secretsManager.on(GetSecretValueCommand).resolves({ SecretString: 'hunter2-not-json' });
    const err = await handler().then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toBe(
      `Secret ${SECRET_ARN} must be a JSON object { "email": "<address>", "password": "<password>" }`,
    );
    secretsManager
      .on(GetSecretValueCommand)
      .resolves({ SecretString: JSON.stringify({ email: 'not-an-address', password: 'hunter2' }) });
    await expect(handler()).rejects.toThrow(/must be a JSON object/);
    expect(await listAccounts(appContext())).toEqual([]);
  });

  it('backfills the listings a table of an older layout lacks, before the new code serves, once', async () => {
    await freshTable();
    await handler();
    // A connection written by code from before its listings held their ends, marked as that layout.
    const [projectId, envId, a, b] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await putConnection(projectId, envId, ['service', a], ['service', b], null, { listed: false });
    const marker = (await getItem<Record<string, unknown>>(keys.migration('conn-listing')))!;
    await putItem({ ...marker, version: String(marker.version).replace(/\|r\d+$/, '|r2') });

    expect(await handler()).toEqual({
      plans: 10,
      staff: 'not configured',
      backfilled: { CONN: { written: 3, removed: 0 } },
    });
    const atA = await queryPrefix<{ a_id: string; b_id: string }>(projectId, keys.listingPrefix('CONN', envId, a));
    expect(atA.map((l) => [l.a_id, l.b_id])).toEqual([[a, b]]);
    expect((await handler()).backfilled).toEqual({});
  });
});
