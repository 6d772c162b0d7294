import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { ddb } from '#shared/clients';
import { createTableInput, TABLE } from '#db/table';
import { seedPlans } from '#domain/billing';
import { backfillListings } from '#domain/catalog';
import { appContext } from '#shared/context';

/**
 * Creates the table (with TTL, and its stream when `stream`) when it does not exist yet; turns the stream
 * on for an older one that lacks it. Without a reader (tests by default) the table has no stream: DynamoDB
 * Local keeps every stream record, and a long-lived test table's writes slowed to a crawl under them.
 */
export async function ensureTable(tableName: string, { stream = true } = {}): Promise<void> {
  const client = ddb();
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName, { stream })));
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { Enabled: true, AttributeName: TABLE.ttlAttribute },
      }),
    );
  } catch (err) {
    if (!(err instanceof ResourceInUseException)) throw err;
  }
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  // A table made before live changes has no stream yet.
  if (stream && !Table?.StreamSpecification?.StreamEnabled)
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        StreamSpecification: createTableInput(tableName).StreamSpecification,
      }),
    );
}

/** Everything the product needs in a fresh table: the table itself and the plan catalogue; an older table's one-time backfills. */
export async function bootstrapData(tableName: string, opts: { stream?: boolean } = {}): Promise<void> {
  await ensureTable(tableName, opts);
  // The plans and the listings are items of their own: written side by side.
  const [, repairs] = await Promise.all([seedPlans(appContext()), backfillListings()]);
  for (const [family, { written, removed }] of Object.entries(repairs)) {
    if (written || removed)
      console.log(`${family.toLowerCase()} listings backfilled: ${written} written, ${removed} removed`);
  }
}
