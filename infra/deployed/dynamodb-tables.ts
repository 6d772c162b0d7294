import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { tableName } from './intrinsics.ts';
import { resourcesOf, type CloudAssembly } from './template.ts';
import { localDynamoCredentials } from '../local/dynamo.ts';

/** The operator's client to DynamoDB Local itself (creating tables is CloudFormation's part, not a function's). */
export const localDynamo = (endpoint: string) =>
  new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: localDynamoCredentials(),
  });

/**
 * Creates the template's tables in DynamoDB Local as CloudFormation would (keys, indexes, stream, TTL),
 * named by their logical ids after `prefix`; an existing table (a kept data folder) is left as it is.
 * Answers the attributes only known once they exist (`<id>.StreamArn`).
 */
export async function createTables(
  assembly: CloudAssembly,
  endpoint: string,
  prefix = '',
): Promise<Record<string, string>> {
  const client = localDynamo(endpoint);
  const attributes: Record<string, string> = {};
  try {
    for (const [id, r] of resourcesOf(assembly, 'AWS::DynamoDB::Table')) {
      const p = r.Properties!;
      const TableName = tableName(id, prefix);
      try {
        await client.send(
          new CreateTableCommand({
            TableName,
            KeySchema: p.KeySchema,
            AttributeDefinitions: p.AttributeDefinitions,
            BillingMode: 'PAY_PER_REQUEST',
            GlobalSecondaryIndexes: p.GlobalSecondaryIndexes,
            StreamSpecification: p.StreamSpecification
              ? { StreamEnabled: true, StreamViewType: p.StreamSpecification.StreamViewType }
              : undefined,
          }),
        );
        if (p.TimeToLiveSpecification?.Enabled)
          await client.send(
            new UpdateTimeToLiveCommand({ TableName, TimeToLiveSpecification: p.TimeToLiveSpecification }),
          );
      } catch (err) {
        if (!(err instanceof ResourceInUseException)) throw err;
      }
      const { Table } = await client.send(new DescribeTableCommand({ TableName }));
      if (Table?.LatestStreamArn) attributes[`${id}.StreamArn`] = Table.LatestStreamArn;
    }
  } finally {
    client.destroy();
  }
  return attributes;
}
