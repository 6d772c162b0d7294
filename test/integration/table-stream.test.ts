import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { reloadConfig } from '#shared/config';
import { ddb, resetClients } from '#shared/clients';
import { createTableInput } from '#db/table';
import { ensureTable } from '../../infra/local/bootstrap.ts';
import { testDynamoEndpoint } from '../helpers/dynamo.ts';

/** `npm start` on a table made before live changes (no stream): its bootstrap turns the stream on (decision 0985). */
describe('the local table stream', () => {
  it('is turned on for a table made without one, with both images', async () => {
    const name = `no-stream-${randomUUID()}`;
    reloadConfig({ TABLE_NAME: name, DYNAMODB_ENDPOINT: await testDynamoEndpoint() });
    resetClients();
    const { StreamSpecification: _none, ...older } = createTableInput(name);
    await ddb().send(new CreateTableCommand(older));
    await ensureTable(name);
    const { Table } = await ddb().send(new DescribeTableCommand({ TableName: name }));
    expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(Table?.LatestStreamArn).toBeTruthy();
  });
});
