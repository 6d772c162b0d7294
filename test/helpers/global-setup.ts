import { startDynamo, type LocalDynamo } from '../../infra/local/dynamo';

let dynamo: LocalDynamo | undefined;

/** Starts DynamoDB Local once per run; test workers inherit its endpoint through the environment. */
export async function setup() {
  dynamo = await startDynamo();
  process.env.TEST_DYNAMODB_ENDPOINT = dynamo.endpoint;
}

export async function teardown() {
  await dynamo?.stop();
}
