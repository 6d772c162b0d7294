import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SESClient } from '@aws-sdk/client-ses';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { config } from './config';

/** Local stand-ins accept any credentials; give them fixed ones so no credential chain is searched. */
const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

let documentClient: DynamoDBDocumentClient | undefined;
let sqsClient: SQSClient | undefined;
let sesClient: SESClient | undefined;
let s3Client: S3Client | undefined;
let secretsClient: SecretsManagerClient | undefined;

/** The DynamoDB document client, created once per process. */
export function ddb(): DynamoDBDocumentClient {
  if (!documentClient) {
    const { DYNAMODB_ENDPOINT, AWS_REGION } = config();
    const base = new DynamoDBClient({
      region: AWS_REGION,
      ...(DYNAMODB_ENDPOINT ? { endpoint: DYNAMODB_ENDPOINT, credentials: localCredentials } : {}),
    });
    documentClient = DynamoDBDocumentClient.from(base, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    });
  }
  return documentClient;
}

export function sqs(): SQSClient {
  sqsClient ??= new SQSClient({ region: config().AWS_REGION });
  return sqsClient;
}

export function ses(): SESClient {
  sesClient ??= new SESClient({ region: config().AWS_REGION });
  return sesClient;
}

export function s3(): S3Client {
  if (!s3Client) {
    const { S3_ENDPOINT, AWS_REGION } = config();
    s3Client = new S3Client({
      region: AWS_REGION,
      ...(S3_ENDPOINT
        ? { endpoint: S3_ENDPOINT, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } }
        : {}),
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
  }
  return s3Client;
}

export function secrets(): SecretsManagerClient {
  secretsClient ??= new SecretsManagerClient({ region: config().AWS_REGION });
  return secretsClient;
}

/** Drops cached clients (after the configuration changed, e.g. a test pointing at another table). */
export function resetClients(): void {
  documentClient?.destroy();
  documentClient = sqsClient = sesClient = s3Client = secretsClient = undefined;
}
