import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { localDynamoCredentials } from '../../infra/local/dynamo.ts';

let ready: Promise<string> | undefined;

/**
 * The run's DynamoDB Local (test/helpers/global-setup.ts), once it answers: its JVM may still be
 * starting when the first files run. Await this before handing the endpoint to anything.
 */
export function testDynamoEndpoint(): Promise<string> {
  ready ??= (async () => {
    const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
    if (!endpoint)
      throw new Error(
        'TEST_DYNAMODB_ENDPOINT is not set: run tests through vitest (global setup starts DynamoDB Local)',
      );
    const client = new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials: localDynamoCredentials(),
    });
    try {
      for (const started = Date.now(); ; ) {
        try {
          await client.send(new ListTablesCommand({ Limit: 1 }));
          return endpoint;
        } catch (err) {
          if (Date.now() - started > 90_000)
            throw new Error(`DynamoDB Local did not answer within 90 s at ${endpoint}`, { cause: err });
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    } finally {
      client.destroy();
    }
  })();
  return ready;
}

/**
 * Every item of a table (matching `filter`), all pages read: a Scan answers at most 1 MB a call, and a
 * test's table may be shared with other files (TEST_SHARED_STACKS), so one call can miss what it looks for.
 */
export async function scanAll(
  TableName: string,
  filter?: { FilterExpression: string; ExpressionAttributeValues: Record<string, unknown> },
): Promise<Record<string, unknown>[]> {
  const { paginateScan } = await import('@aws-sdk/lib-dynamodb');
  const { ddb } = await import('#shared/clients');
  const items: Record<string, unknown>[] = [];
  for await (const page of paginateScan({ client: ddb() }, { TableName, ...filter })) items.push(...(page.Items ?? []));
  return items;
}
