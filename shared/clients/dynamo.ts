import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { byInvocation } from './background-retries.ts';
import { withWriteTap } from './write-tap.ts';

/** The DynamoDB document client (of the running kind of invocation, see `byInvocation`); locally DynamoDB Local with its fixed local credentials (no credential chain is searched). */
export const ddb = byInvocation((settings) => {
  const { DYNAMODB_ENDPOINT, DYNAMODB_LOCAL_ACCESS_KEY, AWS_REGION } = config();
  const base = new DynamoDBClient({
    region: AWS_REGION,
    ...(DYNAMODB_ENDPOINT
      ? {
          endpoint: DYNAMODB_ENDPOINT,
          credentials: { accessKeyId: DYNAMODB_LOCAL_ACCESS_KEY, secretAccessKey: 'local' },
        }
      : {}),
    ...settings,
  });
  return withWriteTap(
    DynamoDBDocumentClient.from(base, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    }),
  );
});
