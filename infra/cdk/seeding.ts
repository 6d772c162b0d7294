import { Duration, Token, type Stack } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Trigger } from 'aws-cdk-lib/triggers';
import { SINGLE_FUNCTIONS } from './functions.ts';
import type { Lambdas } from './lambdas.ts';

/**
 * The deploy-time seeding's run: it also backfills listings (a Scan of the kinds whose layout
 * changed, held in memory), once per layout change, so it gets a worker's longest run and room.
 * The Trigger's provider is itself a Lambda: its call must end within its 15 minutes.
 */
const SEED_RUN = { timeout: Duration.minutes(14), memoryMb: 2048 };

/**
 * Seeding on deploy, built after every other function. A fresh table has no plans (GET /plans → [],
 * POST /projects → 403): the local runtime seeds at start, the cloud runs the same code from a Trigger
 * after the table exists. The Trigger points at the function's current version, so it runs on the first
 * deploy and again whenever the function changes (code, hence the plan catalogue, a listing layout, table
 * name or admin secret ARN). Re-runs are harmless. It runs before every other function is created or
 * updated, so new code never serves from a table missing the listings it reads (the backfill, docs/data-model.md).
 */
export function addSeeding(
  stack: Stack,
  lambdas: Lambdas,
  table: Table,
  adminSecretArn: string | undefined,
): NodejsFunction {
  if (
    adminSecretArn &&
    !Token.isUnresolved(adminSecretArn) &&
    !/^arn:[\w-]+:secretsmanager:[\w-]+:\d{12}:secret:.+-[A-Za-z0-9]{6}$/.test(adminSecretArn)
  ) {
    // IAM matches the exact ARN: a partial one (without the suffix) would only fail at deploy time.
    throw new Error(`bootstrapAdminSecretArn must be a secret's full ARN (ending in -XXXXXX), got: ${adminSecretArn}`);
  }
  const others = [...lambdas.made];
  const seeder = lambdas.bundled(
    SINGLE_FUNCTIONS.seed.id,
    SINGLE_FUNCTIONS.seed.entry,
    SEED_RUN.memoryMb,
    SEED_RUN.timeout,
    {
      STAGE: 'cloud',
      NODE_OPTIONS: '--enable-source-maps',
      TABLE_NAME: table.tableName,
      ...(adminSecretArn ? { BOOTSTRAP_ADMIN_SECRET_ARN: adminSecretArn } : {}),
    },
  );
  // Least privilege, the table only (no index): plan puts; the backfill's Scan, its marker's read and
  // its listings' puts and deletes; the staff account reads the e-mail sentinel and the account.
  seeder.addToRolePolicy(
    new PolicyStatement({
      actions: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Scan'],
      resources: [table.tableArn],
    }),
  );
  if (adminSecretArn)
    seeder.addToRolePolicy(
      new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [adminSecretArn] }),
    );
  new Trigger(stack, 'SeedTrigger', {
    handler: seeder,
    executeAfter: [table],
    executeBefore: others,
    timeout: SEED_RUN.timeout,
    executeOnHandlerChange: true,
  });
  return seeder;
}
