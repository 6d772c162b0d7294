import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/** The single table's shape, shared by the CDK stack and the local runtime so they cannot drift. */
export const TABLE = {
  partitionKey: 'PK',
  sortKey: 'SK',
  ttlAttribute: 'expires_at_epoch',
  /**
   * GSI1: the staff list of accounts (`ACCOUNTS` → e-mail). Bare ids and a user's memberships are
   * items written in the same transaction instead (strongly consistent; see docs/data-model.md).
   * GSI2 and GSI3: a project's audit entries by entity and by actor, newest first.
   */
  indexes: [
    { name: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
    { name: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' },
    { name: 'GSI3', partitionKey: 'GSI3PK', sortKey: 'GSI3SK' },
  ],
} as const;

/** `stream`: the cloud's table has one (live changes read it); a local table only when something reads it. */
export function createTableInput(tableName: string, { stream = true } = {}): CreateTableCommandInput {
  const attrs = new Set<string>([TABLE.partitionKey, TABLE.sortKey]);
  for (const i of TABLE.indexes) {
    attrs.add(i.partitionKey);
    attrs.add(i.sortKey);
  }
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attrs].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: TABLE.indexes.map((i) => ({
      IndexName: i.name,
      KeySchema: [
        { AttributeName: i.partitionKey, KeyType: 'HASH' },
        { AttributeName: i.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
    // As the cloud's: live changes compare each item before and after.
    ...(stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' as const } } : {}),
  };
}
