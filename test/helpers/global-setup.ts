import { startDynamo, type LocalDynamo } from '../../infra/local/dynamo';
import { ensureWebBuild } from '../../infra/local/web';

let dynamo: LocalDynamo | undefined;

/**
 * Starts DynamoDB Local once per run; test workers inherit its endpoint through the environment. The
 * dashboard (web/dist, which the browser tests open) is built meanwhile when its sources changed.
 */
export async function setup() {
  const web = ensureWebBuild();
  web.catch(() => {}); // awaited below, after DynamoDB Local is up
  dynamo = await startDynamo();
  await web.catch(async (err) => {
    await dynamo?.stop();
    throw err;
  });
  process.env.TEST_DYNAMODB_ENDPOINT = dynamo.endpoint;
}

export async function teardown() {
  await dynamo?.stop();
}
