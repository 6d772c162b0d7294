import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config';
import { backgroundRetries, nobodyWaits } from './background-retries';
import { lazyClient } from './lazy';

const documentClient = (retries: Pick<DynamoDBClientConfig, 'retryStrategy'>) => () => {
  const { DYNAMODB_ENDPOINT, AWS_REGION } = config();
  const base = new DynamoDBClient({
    region: AWS_REGION,
    ...(DYNAMODB_ENDPOINT ? { endpoint: DYNAMODB_ENDPOINT, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
    ...retries,
  });
  return DynamoDBDocumentClient.from(base, { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false } });
};

/** A request's client: the SDK's standard retries (3 attempts, a retry quota), then the pipeline's 503 with Retry-After. */
const forRequests = lazyClient(documentClient({}));
/** A worker's, a schedule's or a stream's client: retried through an outage longer (background-retries.ts). */
const forBackground = lazyClient(documentClient({ retryStrategy: backgroundRetries }));

/**
 * The DynamoDB document client of the running invocation; locally DynamoDB Local with fixed credentials (no
 * credential chain is searched). A Lambda function makes only the one it uses.
 */
export const ddb = () => (nobodyWaits() ? forBackground() : forRequests());
