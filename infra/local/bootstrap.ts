import { CreateTableCommand, DescribeTableCommand, ResourceInUseException, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { ddb } from '#shared/clients';
import { appContext } from '#shared/context';
import { createTableInput, TABLE } from '#db/table';
import { findAccountByEmail, type Account } from '#domain/identity';
import { seedPlans } from '#domain/billing';
import { createAccount } from '#domain/identity';

/** Creates the table (with TTL) when it does not exist yet. */
export async function ensureTable(tableName: string): Promise<void> {
  const client = ddb();
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName)));
    await client.send(new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { Enabled: true, AttributeName: TABLE.ttlAttribute } }));
  } catch (err) {
    if (!(err instanceof ResourceInUseException)) throw err;
  }
  await client.send(new DescribeTableCommand({ TableName: tableName }));
}

/** Ensures a staff superuser with this address exists; an existing account is left as it is. */
export async function ensureStaff(email: string, password: string): Promise<{ account: Account; created: boolean }> {
  const existing = await findAccountByEmail(email);
  if (existing) return { account: existing, created: false };
  const account = await createAccount({ email, account_type: 'staff', is_staff: true, is_superuser: true, admin_role: 'superuser' }, password, appContext());
  return { account, created: true };
}

/** Everything the product needs in a fresh table: the table itself and the plan catalogue. */
export async function bootstrapData(tableName: string): Promise<void> {
  await ensureTable(tableName);
  await seedPlans();
}
