import { Duration, type Stack } from 'aws-cdk-lib';
import { AttributeType, BillingMode, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Key } from 'aws-cdk-lib/aws-kms';
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { TABLE } from '#db/table';
import { ack } from './bundling.ts';

/** The single table, the documents bucket and the access-log bucket. */
export interface Stores {
  table: Table;
  accessLogs: Bucket;
  documents: Bucket;
}

/** The token signing key, CloudFront's origin-verify header value and the TOTP secrets' KMS key. */
export interface Secrets {
  signingKey: Secret;
  originVerify: Secret;
  totpKey: Key;
}

/** The table (PITR, TTL, its GSIs, the outbox stream) and the buckets, in the stack's own scope (their logical ids are the stack's). */
export function createStores(stack: Stack, siteDomainName: string | undefined): Stores {
  const table = new Table(stack, 'Table', {
    partitionKey: { name: TABLE.partitionKey, type: AttributeType.STRING },
    sortKey: { name: TABLE.sortKey, type: AttributeType.STRING },
    billingMode: BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    timeToLiveAttribute: TABLE.ttlAttribute,
    // The outbox reader: domain events written with their change reach the events queue from here; live
    // changes compare an item before and after (created, updated, deleted; an internal move says nothing).
    stream: StreamViewType.NEW_AND_OLD_IMAGES,
  });
  for (const i of TABLE.indexes) {
    table.addGlobalSecondaryIndex({
      indexName: i.name,
      partitionKey: { name: i.partitionKey, type: AttributeType.STRING },
      sortKey: { name: i.sortKey, type: AttributeType.STRING },
    });
  }

  const accessLogs = new Bucket(stack, 'AccessLogs', {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    encryption: BucketEncryption.S3_MANAGED, // S3 log delivery cannot write to SSE-KMS buckets
    enforceSSL: true,
    // ACLs stay enabled (objects still owned by the account): CloudFront delivers its standard logs
    // (the dashboard's distribution, prefix cloudfront/) through an ACL grant; S3's use the bucket policy.
    objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
    lifecycleRules: [{ expiration: Duration.days(365) }],
  });

  const documents = new Bucket(stack, 'Documents', {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    encryption: BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    serverAccessLogsBucket: accessLogs,
    serverAccessLogsPrefix: 'documents/',
    lifecycleRules: [
      { prefix: 'exports/', expiration: Duration.days(30) }, // exports are regenerated on demand
      { abortIncompleteMultipartUploadAfter: Duration.days(7) },
    ],
    // The dashboard PUTs an import's document to its presigned URL from the site's origin. Without a
    // custom domain the origin is the distribution's, which depends on this bucket (its CSP names the
    // bucket's host): any origin then; the presigned signature is the credential either way.
    cors: [
      {
        allowedMethods: [HttpMethods.PUT],
        allowedOrigins: siteDomainName ? [`https://${siteDomainName}`] : ['*'],
        allowedHeaders: ['content-type'],
        maxAge: 3600,
      },
    ],
  });
  return { table, accessLogs, documents };
}

/** The secrets and the KMS key, in the stack's own scope. */
export function createSecrets(stack: Stack): Secrets {
  const signingKey = new Secret(stack, 'SigningKey', {
    description: 'HMAC key that signs access tokens (read as raw SecretString bytes)',
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
  });
  ack(
    signingKey,
    'SMG4',
    'Rotating the token signing key needs key ids and a verification grace period in shared/auth first; until then rotation would sign everyone out. Rotate manually.',
  );

  // CloudFront proves to the API that a request came through the site (its viewer address is then believed).
  const originVerify = new Secret(stack, 'OriginVerify', {
    description: 'Header value CloudFront adds to requests it forwards to the HTTP API (x-origin-verify)',
    generateSecretString: { passwordLength: 48, excludePunctuation: true },
  });
  ack(
    originVerify,
    'SMG4',
    'Rotating it means updating the distribution and the functions together (a deploy); rotate manually: put a new value, then cdk deploy.',
  );

  const totpKey = new Key(stack, 'TotpKey', { description: 'Encrypts TOTP secrets at rest', enableKeyRotation: true });
  return { signingKey, originVerify, totpKey };
}
