/**
 * Each test worker presents its own access key to the run's DynamoDB Local, which keeps a database per key
 * (infra/local/dynamo.ts `localDynamoCredentials`): a worker's tables, its stacks and the processes it
 * starts share that database, and one worker's writes do not queue behind another's.
 * (DynamoDB Local takes only letters and digits in a key.)
 */
process.env.DYNAMODB_LOCAL_ACCESS_KEY = `testworker${process.env.VITEST_POOL_ID ?? 0}`;
