import type { Duration, Stack } from 'aws-cdk-lib';
import type { WebSocketApi, WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { QueueName } from '#shared/queue';
import { separatePackageCommands } from './aliases.ts';
import {
  ack,
  afterBundlingCommands,
  LAMBDA_ARCHITECTURE,
  METRICS_NAMESPACE,
  ROOT,
  SAM_OVERRIDABLE_ENVIRONMENT,
  separatePackagesOf,
} from './bundling.ts';
import type { Secrets, Stores } from './data.ts';
import { bundledCode } from './function-bundles.ts';
import { serviceName } from './functions.ts';
import { needsOf } from './needs.ts';
import type { WebHosting } from './web-hosting.ts';

/** Queue → the environment variable its URL is passed in (`satisfies` makes a new QueueName a compile error here). */
export const QUEUE_URL_ENV = {
  jobs: 'JOBS_QUEUE_URL',
  events: 'EVENTS_QUEUE_URL',
  mail: 'MAIL_QUEUE_URL',
} as const satisfies Record<QueueName, string>;

/**
 * What each function that stores documents may do in the bucket, by key prefix: the impex
 * API puts uploaded imports, reads the size of one put through an upload URL (HeadObject needs
 * s3:GetObject: without it S3 answers 403 and the import fails; found by start:deployed) and
 * presigns exports' downloads (a presigned URL carries exactly the signer's rights), the jobs worker
 * reads the imports and writes the exports. Nobody deletes: the bucket's lifecycle rules expire objects.
 */
const DOCUMENT_ACCESS: Record<string, { get: readonly string[]; put: readonly string[] }> = {
  'functions/impex/handler.ts': { get: ['exports', 'imports'], put: ['imports'] },
  'functions/workers/jobs/handler.ts': { get: ['imports'], put: ['exports'] },
};

/** What a function may be granted, and the addresses its environment carries. */
export interface LambdaResources extends Stores, Secrets {
  queues: Record<QueueName, Queue>;
  progressApi: WebSocketApi;
  progressStage: WebSocketStage;
  web: WebHosting;
}

/** The stack's settings the functions' environment carries (CatalogStackProps' subset). */
export interface EnvironmentProps {
  appBaseUrl?: string;
  apiBaseUrl?: string;
  mailFrom?: string;
  allowedOrigins?: string;
  stripeSecretArn?: string;
}

/** The environment every function built by `Lambdas.fn` gets. */
export function functionEnvironment(props: EnvironmentProps, r: LambdaResources): Record<string, string> {
  const stripeSecretArn = props.stripeSecretArn;
  return {
    STAGE: 'cloud',
    NODE_OPTIONS: '--enable-source-maps',
    TABLE_NAME: r.table.tableName,
    BUCKET_NAME: r.documents.bucketName,
    SIGNING_KEY_SECRET_ARN: r.signingKey.secretArn,
    TOTP_KMS_KEY_ID: r.totpKey.keyId,
    MAIL_TRANSPORT: 'ses',
    APP_BASE_URL: props.appBaseUrl ?? r.web.url,
    API_BASE_URL: props.apiBaseUrl ?? r.web.url,
    PAYMENT_PROVIDER: stripeSecretArn ? 'stripe' : 'none',
    WS_BASE_URL: r.web.progressUrl,
    WS_CALLBACK_URL: r.progressStage.callbackUrl,
    ORIGIN_VERIFY_SECRET: r.originVerify.secretValue.unsafeUnwrap(),
    ...(stripeSecretArn ? { STRIPE_SECRET_ARN: stripeSecretArn } : {}),
    ...(props.mailFrom ? { MAIL_FROM: props.mailFrom } : {}),
    ...(props.allowedOrigins ? { ALLOWED_ORIGINS: props.allowedOrigins } : {}),
    ...Object.fromEntries(
      (Object.keys(QUEUE_URL_ENV) as QueueName[]).map((q) => [QUEUE_URL_ENV[q], r.queues[q].queueUrl]),
    ),
  };
}

/**
 * Builds the stack's functions, each created in the stack's own scope under its id (so its logical id
 * is the stack's, as before the stack was split into files), and remembers every one it made (the
 * seeding Trigger runs before them all).
 */
export class Lambdas {
  /** Every function made so far, in order. */
  readonly made: NodejsFunction[] = [];

  private readonly stack: Stack;
  private readonly r: LambdaResources;
  /** The environment of the functions built by `fn`. */
  readonly environment: Record<string, string>;
  private readonly stripeSecretArn: string | undefined;

  constructor(
    stack: Stack,
    r: LambdaResources,
    environment: Record<string, string>,
    stripeSecretArn: string | undefined,
  ) {
    this.stack = stack;
    this.r = r;
    this.environment = environment;
    this.stripeSecretArn = stripeSecretArn;
  }

  /** A bundled Node 24 function; every function is built this way, grants are added by the caller. */
  bundled(
    id: string,
    entry: string,
    memorySize: number,
    timeout: Duration,
    env: Record<string, string>,
  ): NodejsFunction {
    // Observability: each function's own service name on its log lines and metrics, one metrics
    // namespace, X-Ray active tracing with the SDK clients captured (the tracer loads at the first invocation).
    const separate = separatePackagesOf(entry);
    const observability = {
      POWERTOOLS_SERVICE_NAME: serviceName(id),
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      POWERTOOLS_TRACE_ENABLED: 'true',
    };
    const f = new NodejsFunction(this.stack, id, {
      runtime: Runtime.NODEJS_24_X,
      architecture: LAMBDA_ARCHITECTURE, // the unpacked argon2 binary is the linux-arm64-gnu one
      memorySize,
      timeout,
      environment: { ...env, ...observability, ...SAM_OVERRIDABLE_ENVIRONMENT },
      tracing: Tracing.ACTIVE,
      logGroup: new LogGroup(this.stack, `${id}Logs`, { retention: RetentionDays.ONE_MONTH }),
      // One esbuild build for every function of the synthesis, not NodejsFunction's own per function (function-bundles.ts).
      handler: 'index.handler',
      code: bundledCode(ROOT, entry, (outputDir) => [
        ...afterBundlingCommands(entry, ROOT, outputDir),
        ...separate.flatMap((pkg) => separatePackageCommands(ROOT, outputDir, pkg)),
      ]),
    });
    ack(
      f,
      'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      "AWS's minimal managed policy for writing the function's own CloudWatch logs.",
    );
    ack(
      f,
      'IAM5[Resource::*]',
      'Active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords have no resource-level permissions.',
    );
    this.made.push(f);
    return f;
  }

  /**
   * A function with exactly the grants its code needs, read off its bundle (`needs.ts`): the table,
   * document objects, sending to the queues it enqueues on, the signing secret, the TOTP key, the
   * Stripe secret and posting to progress connections, each only when the module using it is bundled.
   */
  fn(id: string, entry: string, memorySize: number, timeout: Duration): NodejsFunction {
    const { stack, r, stripeSecretArn } = this;
    const f = this.bundled(id, entry, memorySize, timeout, this.environment);
    const needs = needsOf(ROOT, entry);
    if (needs.table) {
      r.table.grantReadWriteData(f);
      ack(
        f,
        `IAM5[Resource::<${stack.getLogicalId(r.table.node.defaultChild as never)}.Arn>/index/*]`,
        "Query on the table's GSI (GSI1, the staff list of accounts); CDK's grant covers the table's indexes with index/*.",
      );
    }
    if (needs.documents) {
      // Object-level access only, per key prefix (no s3:GetObject* wildcards from bucket.grantReadWrite); no listing.
      const access = DOCUMENT_ACCESS[entry];
      if (!access)
        throw new Error(`${entry} stores documents: say which prefixes it reads and writes in DOCUMENT_ACCESS`);
      for (const [action, prefixes] of [
        ['s3:GetObject', access.get],
        ['s3:PutObject', access.put],
      ] as const) {
        f.addToRolePolicy(
          new PolicyStatement({
            actions: [action],
            resources: prefixes.map((p) => r.documents.arnForObjects(`${p}/*`)),
          }),
        );
        for (const p of prefixes)
          ack(
            f,
            `IAM5[Resource::<${stack.getLogicalId(r.documents.node.defaultChild as never)}.Arn>/${p}/*]`,
            'Object keys are per tenant and per record, not known at deploy time; one action on one prefix of this one bucket.',
          );
      }
    }
    for (const q of needs.queues) r.queues[q].grantSendMessages(f);
    if (needs.signingKey) r.signingKey.grantRead(f);
    // Only what sealing needs: TOTP secrets, the refresh grace (no GenerateDataKey*/ReEncrypt*).
    if (needs.totpKey) r.totpKey.grant(f, 'kms:Encrypt', 'kms:Decrypt');
    if (needs.stripeSecret && stripeSecretArn)
      f.addToRolePolicy(
        new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [stripeSecretArn] }),
      );
    if (needs.assumeRole) {
      // Discovery assumes customers' roles: their accounts are unknown at deploy time, so the resource is every
      // role, and the condition keeps the call to requests carrying one of our generated external ids (`icat-…`),
      // which the customer's trust policy requires.
      f.addToRolePolicy(
        new PolicyStatement({
          actions: ['sts:AssumeRole'],
          resources: [`arn:${stack.partition}:iam::*:role/*`],
          conditions: { StringLike: { 'sts:ExternalId': 'icat-*' } },
        }),
      );
      ack(
        f,
        'IAM5[Resource::arn:<AWS::Partition>:iam::*:role/*]',
        "Customers' discovery roles live in their own accounts, unknown at deploy time; only with one of our generated external ids.",
      );
    }
    if (needs.push) {
      r.progressStage.grantManagementApiAccess(f);
      ack(
        f,
        `IAM5[Resource::arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${stack.getLogicalId(r.progressApi.node.defaultChild as never)}>/progress/*/@connections/*]`,
        "Connection ids are made per client at $connect; posting is limited to this API's progress stage.",
      );
    }
    return f;
  }
}
