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
import { ensureTable } from '../../infra/local/bootstrap';
import { handler } from '../../functions/seed/handler';

/**
 * The seeding function as the deploy-time trigger runs it: against an empty table, as after a fresh
 * `cdk deploy` (not the test stack's, which the local bootstrap has already seeded), Secrets Manager mocked.
 */
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:catalog/bootstrap-admin-AbCdEf';
const ADMIN = { email: 'root@example.com', password: 'correct horse battery staple' };
const secretsManager = mockClient(SecretsManagerClient);

/** Points the configuration at a new, empty table (with or without the admin secret configured). */
async function freshTable(env: Record<string, string> = {}): Promise<void> {
  const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('TEST_DYNAMODB_ENDPOINT is not set: run tests through vitest');
  const c = reloadConfig({ DYNAMODB_ENDPOINT: endpoint, TABLE_NAME: `test-seed-${randomUUID()}`, ...env });
  await ensureTable(c.TABLE_NAME);
}
const planItems = () => queryAll({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.plans } });

beforeAll(() => resetClients());
afterAll(() => resetClients());
beforeEach(() => secretsManager.reset());

describe('seeding function (run on deploy)', () => {
  it('seeds the plans and the staff account from the secret once; a second run changes nothing', async () => {
    await freshTable({ BOOTSTRAP_ADMIN_SECRET_ARN: SECRET_ARN });
    secretsManager.on(GetSecretValueCommand, { SecretId: SECRET_ARN }).resolves({ SecretString: JSON.stringify(ADMIN) });
    expect(await planItems()).toEqual([]);

    expect(await handler()).toEqual({ plans: 10, staff: 'created' });
    const plansAfterFirst = await planItems();
    expect(plansAfterFirst.map((p) => p.id)).toEqual(PLAN_CATALOGUE.map((p) => p.id)); // all ten, in the documented order
    expect(plansAfterFirst.map((p) => p.name)).toContain('Free');
    const staff = (await findAccountByEmail(ADMIN.email))!;
    expect(staff).toMatchObject({ email: ADMIN.email, account_type: 'staff', is_staff: true, is_superuser: true, admin_role: 'superuser', is_active: true });
    expect(await verifyPassword(staff.password_hash, ADMIN.password)).toBe(true);

    expect(await handler()).toEqual({ plans: 10, staff: 'exists' });
    expect(await planItems()).toEqual(plansAfterFirst); // same count, same content
    expect(await findAccountByEmail(ADMIN.email)).toEqual(staff); // same id, hash and timestamps: left unchanged
    expect((await listAccounts(appContext())).map((a) => a.id)).toEqual([staff.id]); // no second account
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('without an admin secret configured seeds only the plans and never calls Secrets Manager', async () => {
    await freshTable();
    expect(await handler()).toEqual({ plans: 10, staff: 'not configured' });
    expect(await planItems()).toHaveLength(10);
    expect(await listAccounts(appContext())).toEqual([]);
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(0);
  });

  it('fails (so the deployment fails) on a secret that is not { email, password }, without echoing it', async () => {
    await freshTable({ BOOTSTRAP_ADMIN_SECRET_ARN: SECRET_ARN });
    secretsManager.on(GetSecretValueCommand).resolves({ SecretString: 'hunter2-not-json' });
    const err = await handler().then(() => undefined, (e: Error) => e);
    expect(err?.message).toBe(`Secret ${SECRET_ARN} must be a JSON object { "email": "<address>", "password": "<password>" }`);
    secretsManager.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify({ email: 'not-an-address', password: 'hunter2' }) });
    await expect(handler()).rejects.toThrow(/must be a JSON object/);
    expect(await listAccounts(appContext())).toEqual([]);
  });
});
