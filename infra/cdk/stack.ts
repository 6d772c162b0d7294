import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CfnOutput, Duration, Stack, Token, Validations, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod, HttpRoute, HttpRouteKey, LogGroupLogDestination, WebSocketApi, WebSocketStage, type HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { WebSocketLambdaAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration, WebSocketLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Alarm, ComparisonOperator, Dashboard, GraphWidget, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { AttributeType, BillingMode, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Architecture, FilterCriteria, FilterRule, Runtime, StartingPosition, Tracing } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Trigger } from 'aws-cdk-lib/triggers';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { Construct, IConstruct } from 'constructs';
import { FALLBACK_GROUP, routeTable } from '../../functions/route-table';
import { workerTable } from '../../functions/workers';
import type { QueueName } from '#shared/queue';
import { MAX_RECEIVES } from '#shared/queue-settings';
import { TABLE } from '#db/table';
import { needsOf } from './needs';
import { BANNER, BUNDLE_ALIASES, EXTERNAL_MODULES, SEPARATE_PACKAGES, separatePackageCommands } from './aliases';
import { httpFunction, httpFunctionGroups, jobsV8Flags, pascal, serviceName, SINGLE_FUNCTIONS, workerFunction } from './functions';
import { WebHosting } from './web-hosting';

export { serviceName };

const ROOT = join(import.meta.dirname, '..', '..');

/** Queue → the environment variable its URL is passed in (`satisfies` makes a new QueueName a compile error here). */
const QUEUE_URL_ENV = { jobs: 'JOBS_QUEUE_URL', events: 'EVENTS_QUEUE_URL', mail: 'MAIL_QUEUE_URL' } as const satisfies Record<QueueName, string>;
/** A worker's Lambda timeout and SQS batch: WORKER_TIMEOUT and 10 by default; the jobs worker's exports and imports of any size one at a time, for up to 15 minutes, with V8's heap capped (jobsV8Flags). */
const WORKER_RUN: Partial<Record<QueueName, { timeout: Duration; batchSize: number; nodeOptions: string }>> = {
  jobs: { timeout: Duration.minutes(15), batchSize: 1, nodeOptions: jobsV8Flags().join(' ') },
};

const HTTP_TIMEOUT = Duration.seconds(29); // API Gateway HTTP APIs give up after 30 s anyway
const WORKER_TIMEOUT = Duration.seconds(60);
/**
 * The deploy-time seeding's run: it also backfills listings (a Scan of the kinds whose layout
 * changed, held in memory), once per layout change, so it gets a worker's longest run and room.
 * The Trigger's provider is itself a Lambda: its call must end within its 15 minutes.
 */
const SEED_RUN = { timeout: Duration.minutes(14), memoryMb: 2048 };

export interface CatalogStackProps extends StackProps {
  /** Public base URL used in links (e-mails, redirects) and the origin allowed to send cookie-authenticated writes; defaults to the site's (the distribution serving the dashboard and the API). */
  appBaseUrl?: string;
  /** A custom domain for the site (dashboard and API), with its ACM certificate's ARN in us-east-1; else CloudFront's own domain. */
  siteDomainName?: string;
  siteCertificateArn?: string;
  /** The built dashboard; defaults to web/dist (infra/cdk/app.ts builds it before synthesizing). */
  webDist?: string;
  /** SES-verified sender address. */
  mailFrom?: string;
  /** Comma-separated origins (besides the app's own) allowed to send cookie-authenticated writes. */
  allowedOrigins?: string;
  /**
   * Full ARN (with its 6-character suffix) of a Secrets Manager secret `{ "email", "password" }`: the
   * seeding function makes the first staff superuser from it on deploy. Unset: plans only.
   */
  bootstrapAdminSecretArn?: string;
  /** The API's public base URL (invoice and download links); defaults to the site's, where the API is served beside the dashboard. */
  apiBaseUrl?: string;
  /**
   * Full ARN of a Secrets Manager secret `{ "secret_key", "webhook_secret" }`: Stripe becomes the payment
   * provider (its webhook: POST /billing/stripe/webhook). Unset: no payment provider (paid plans and the portal are refused).
   */
  stripeSecretArn?: string;
}

/**
 * Files a function reads from beside its bundle at run time, copied in after bundling: the API
 * reference page's Redoc script (1.1 MB, read on first request so the docs function's cold start never parses it).
 */
export const FILES_BESIDE_BUNDLE: Record<string, string[]> = {
  'functions/docs/handler.ts': ['node_modules/redoc/bundles/redoc.standalone.js'],
};

/**
 * Every function runs on Graviton (docs/decisions.md, "arm64 (issue 17)"): cheaper per GB-second.
 * `Architecture.X86_64` here switches back (argon2's x64 binary is then copied from node_modules).
 */
export const LAMBDA_ARCHITECTURE = Architecture.ARM_64;

/**
 * argon2's native binary for arm64 Linux: the registry's tarball of the version package-lock.json pins,
 * committed under infra/cdk/vendor/ (`npm ci` on an x86 machine skips that optional package, and synth
 * stays offline); test/infra/argon2-arm64.test.ts holds it to the lockfile's integrity.
 */
export function argon2Arm64Tarball(): string {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> };
  return `infra/cdk/vendor/node-rs-argon2-linux-arm64-gnu-${lock.packages['node_modules/@node-rs/argon2-linux-arm64-gnu'].version}.tgz`;
}

/**
 * What each function that stores documents may do in the bucket, by key prefix (issue 26): the impex
 * API puts uploaded imports, reads the size of one put through an upload URL (HeadObject needs
 * s3:GetObject: without it S3 answers 403 and the import fails; found by start:deployed, issue 34) and
 * presigns exports' downloads (a presigned URL carries exactly the signer's rights), the jobs worker
 * reads the imports and writes the exports. Nobody deletes: the bucket's lifecycle rules expire objects.
 */
const DOCUMENT_ACCESS: Record<string, { get: readonly string[]; put: readonly string[] }> = {
  'functions/impex/handler.ts': { get: ['exports', 'imports'], put: ['imports'] },
  'functions/workers/jobs/handler.ts': { get: ['imports'], put: ['exports'] },
};

/** The separate packages (aliases.ts) shipped beside a function's bundle: all functions', and those its bundle needs. */
export function separatePackagesOf(entry: string): (keyof typeof SEPARATE_PACKAGES)[] {
  return (Object.keys(SEPARATE_PACKAGES) as (keyof typeof SEPARATE_PACKAGES)[]).filter((pkg) => {
    const { when } = SEPARATE_PACKAGES[pkg];
    return when === 'always' || needsOf(ROOT, entry)[when];
  });
}

/**
 * What runs after esbuild, per function: argon2's loader copied and its arm64 binary unpacked in by
 * hand (`nodeModules` would run `npm install`, which needs the network), then the entry's files beside the bundle.
 */
export function afterBundlingCommands(entry: string, inputDir: string, outputDir: string, architecture = LAMBDA_ARCHITECTURE): string[] {
  const modules = `${outputDir}/node_modules/@node-rs`;
  const binary = architecture.name === Architecture.ARM_64.name
    ? [`mkdir -p "${modules}/argon2-linux-arm64-gnu"`, `tar -xzf "${inputDir}/${argon2Arm64Tarball()}" -C "${modules}/argon2-linux-arm64-gnu" --strip-components=1`]
    : [`cp -R "${inputDir}/node_modules/@node-rs/argon2-linux-x64-gnu" "${modules}/"`]; // x86_64: the binary npm ci installed here
  return [
    `mkdir -p "${modules}"`,
    `cp -R "${inputDir}/node_modules/@node-rs/argon2" "${modules}/"`,
    ...binary,
    ...(FILES_BESIDE_BUNDLE[entry] ?? []).map((file) => `cp "${inputDir}/${file}" "${outputDir}/"`),
  ];
}

/** The CloudWatch namespace of the functions' EMF metrics (Powertools Metrics). */
export const METRICS_NAMESPACE = 'InfraCatalog';

/**
 * Declared on every function, empty (the service's own endpoint), for `sam local invoke`: SAM's
 * `--env-vars` file only overrides variables the template declares, and this is the one that points a
 * function at DynamoDB Local (infra/local/sam-env.json; README "Invoking functions with SAM").
 */
export const SAM_OVERRIDABLE_ENVIRONMENT = { DYNAMODB_ENDPOINT: '' } as const;
const ack = (scope: IConstruct, id: string, reason: string) => Validations.of(scope).acknowledge({ id: `AwsSolutions-${id}`, reason });

export class CatalogStack extends Stack {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly httpFunctions: Record<string, NodejsFunction> = {};
  readonly workers: Record<string, NodejsFunction> = {};
  /** Live job progress: `$connect` with a single-use ticket (authorizer), messages posted by the jobs worker. */
  readonly progressApi: WebSocketApi;
  /** Sweeps webhook delivery attempts that have fallen due, every minute. */
  readonly webhookRetriesFunction: NodejsFunction;
  /** Reads the table's stream: inserted outbox items go to the events queue. */
  readonly outboxFunction: NodejsFunction;
  /** Sweeps what has fallen due (downgrade reminders and enforcement) every 15 minutes. */
  readonly deadlinesFunction: NodejsFunction;
  /** Seeds plans (and the optional first staff account) on deploy. */
  readonly seedFunction: NodejsFunction;
  /** The dashboard from S3 and the API, on one CloudFront site. */
  readonly web: WebHosting;

  constructor(scope: Construct, id: string, props: CatalogStackProps = {}) {
    super(scope, id, props);

    // --- Data -------------------------------------------------------------------------------------
    const table = new Table(this, 'Table', {
      partitionKey: { name: TABLE.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TABLE.ttlAttribute,
      // The outbox reader: domain events written with their change reach the events queue from here.
      stream: StreamViewType.NEW_IMAGE,
    });
    for (const i of TABLE.indexes) {
      table.addGlobalSecondaryIndex({
        indexName: i.name,
        partitionKey: { name: i.partitionKey, type: AttributeType.STRING },
        sortKey: { name: i.sortKey, type: AttributeType.STRING },
      });
    }

    const accessLogs = new Bucket(this, 'AccessLogs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED, // S3 log delivery cannot write to SSE-KMS buckets
      enforceSSL: true,
      // ACLs stay enabled (objects still owned by the account): CloudFront delivers its standard logs
      // (the dashboard's distribution, prefix cloudfront/) through an ACL grant; S3's use the bucket policy.
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ expiration: Duration.days(365) }],
    });

    const bucket = new Bucket(this, 'Documents', {
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
      cors: [{ allowedMethods: [HttpMethods.PUT], allowedOrigins: props.siteDomainName ? [`https://${props.siteDomainName}`] : ['*'], allowedHeaders: ['content-type'], maxAge: 3600 }],
    });

    const queues = {} as Record<QueueName, Queue>;
    const dlqs = {} as Record<QueueName, Queue>;
    for (const name of Object.keys(QUEUE_URL_ENV) as QueueName[]) {
      const dlq = new Queue(this, `${pascal(name)}Dlq`, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14), // the maximum: time to inspect and redrive
      });
      queues[name] = new Queue(this, `${pascal(name)}Queue`, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        visibilityTimeout: Duration.seconds((WORKER_RUN[name]?.timeout ?? WORKER_TIMEOUT).toSeconds() * 6), // AWS guidance for Lambda consumers
        deadLetterQueue: { queue: dlq, maxReceiveCount: MAX_RECEIVES },
      });
      dlqs[name] = dlq;
      new Alarm(this, `${pascal(name)}DlqAlarm`, {
        alarmDescription: `Messages on the ${name} dead-letter queue: a worker failed them ${MAX_RECEIVES} times`,
        metric: dlq.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    }

    const signingKey = new Secret(this, 'SigningKey', {
      description: 'HMAC key that signs access tokens (read as raw SecretString bytes)',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
    });
    ack(signingKey, 'SMG4', 'Rotating the token signing key needs key ids and a verification grace period in shared/auth first; until then rotation would sign everyone out. Rotate manually.');

    // CloudFront proves to the API that a request came through the site (its viewer address is then believed).
    const originVerify = new Secret(this, 'OriginVerify', {
      description: 'Header value CloudFront adds to requests it forwards to the HTTP API (x-origin-verify)',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });
    ack(originVerify, 'SMG4', 'Rotating it means updating the distribution and the functions together (a deploy); rotate manually: put a new value, then cdk deploy.');

    const totpKey = new Key(this, 'TotpKey', { description: 'Encrypts TOTP secrets at rest', enableKeyRotation: true });

    // --- HTTP API ---------------------------------------------------------------------------------
    this.api = new HttpApi(this, 'Api', { createDefaultStage: false });
    const apiLogs = new LogGroup(this, 'ApiAccessLogs', { retention: RetentionDays.THREE_MONTHS });
    this.stage = this.api.addStage('Stage', {
      stageName: '$default',
      autoDeploy: true,
      accessLogSettings: {
        destination: new LogGroupLogDestination(apiLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId', ip: '$context.identity.sourceIp', method: '$context.httpMethod', path: '$context.path',
            routeKey: '$context.routeKey', status: '$context.status', latencyMs: '$context.responseLatency',
            userAgent: '$context.identity.userAgent', integrationError: '$context.integrationErrorMessage',
          }),
        ),
      },
    });
    ack(this.api, 'APIG4', 'Authorization is enforced in the Lambda router from each route\'s declared auth level (JWT access tokens issued by this API); public routes must be reachable anonymously.');

    // The progress WebSocket API first (its routes are added once the functions exist): every function learns its URLs.
    this.progressApi = new WebSocketApi(this, 'ProgressApi', { description: 'Live progress of import/export jobs' });
    const progressStage = new WebSocketStage(this, 'ProgressStage', { webSocketApi: this.progressApi, stageName: 'progress', autoDeploy: true });
    // The dashboard and the API on one site (the distribution's API behaviours need only the APIs' ids):
    // links, the allowed origin and the progress WebSocket's address are that site's.
    this.web = new WebHosting(this, 'Web', {
      webDist: props.webDist ?? join(ROOT, 'web', 'dist'),
      api: this.api,
      progressApi: this.progressApi,
      progressStage,
      accessLogs,
      documents: bucket,
      domainName: props.siteDomainName,
      certificateArn: props.siteCertificateArn,
      originVerify: originVerify.secretValue.unsafeUnwrap(),
    });
    const appBaseUrl = props.appBaseUrl ?? this.web.url;
    const stripeSecretArn = props.stripeSecretArn;
    const environment: Record<string, string> = {
      STAGE: 'cloud',
      NODE_OPTIONS: '--enable-source-maps',
      TABLE_NAME: table.tableName,
      BUCKET_NAME: bucket.bucketName,
      SIGNING_KEY_SECRET_ARN: signingKey.secretArn,
      TOTP_KMS_KEY_ID: totpKey.keyId,
      MAIL_TRANSPORT: 'ses',
      APP_BASE_URL: appBaseUrl,
      API_BASE_URL: props.apiBaseUrl ?? this.web.url,
      PAYMENT_PROVIDER: stripeSecretArn ? 'stripe' : 'none',
      WS_BASE_URL: this.web.progressUrl,
      WS_CALLBACK_URL: progressStage.callbackUrl,
      ORIGIN_VERIFY_SECRET: originVerify.secretValue.unsafeUnwrap(),
      ...(stripeSecretArn ? { STRIPE_SECRET_ARN: stripeSecretArn } : {}),
      ...(props.mailFrom ? { MAIL_FROM: props.mailFrom } : {}),
      ...(props.allowedOrigins ? { ALLOWED_ORIGINS: props.allowedOrigins } : {}),
      ...Object.fromEntries((Object.keys(QUEUE_URL_ENV) as QueueName[]).map((q) => [QUEUE_URL_ENV[q], queues[q].queueUrl])),
    };

    const tableIndexes = `Resource::<${this.getLogicalId(table.node.defaultChild as never)}.Arn>/index/*`;
    /** A bundled Node 24 function; every function is built this way, grants are added by the caller. */
    const made: NodejsFunction[] = [];
    const bundled = (id: string, entry: string, memorySize: number, timeout: Duration, env: Record<string, string>) => {
      // Observability (issue 17): each function's own service name on its log lines and metrics, one metrics
      // namespace, X-Ray active tracing with the SDK clients captured (the tracer loads at the first invocation).
      const separate = separatePackagesOf(entry);
      const observability = { POWERTOOLS_SERVICE_NAME: serviceName(id), POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE, POWERTOOLS_TRACE_ENABLED: 'true' };
      const f = new NodejsFunction(this, id, {
        entry: join(ROOT, entry),
        handler: 'handler',
        runtime: Runtime.NODEJS_24_X,
        architecture: LAMBDA_ARCHITECTURE, // the unpacked argon2 binary is the linux-arm64-gnu one
        memorySize,
        timeout,
        environment: { ...env, ...observability, ...SAM_OVERRIDABLE_ENVIRONMENT },
        tracing: Tracing.ACTIVE,
        logGroup: new LogGroup(this, `${id}Logs`, { retention: RetentionDays.ONE_MONTH }),
        projectRoot: ROOT,
        depsLockFilePath: join(ROOT, 'package-lock.json'),
        bundling: {
          format: OutputFormat.ESM,
          target: 'node24',
          minify: true,
          sourceMap: true,
          sourcesContent: false, // stack traces need file:line only; keeps the zip small
          forceDockerBundling: false, // the local esbuild: synth stays offline and Docker-free
          // ESM output has no `require`: bundled CommonJS dependencies (and argon2's loader) need one.
          banner: BANNER,
          externalModules: EXTERNAL_MODULES,
          // Cold start: `node:http` without its ESM facade (which loads undici); see aliases.ts.
          esbuildArgs: Object.fromEntries(Object.entries(BUNDLE_ALIASES).map(([from, to]) => [`--alias:${from}`, to])),
          commandHooks: {
            beforeBundling: () => [],
            beforeInstall: () => [],
            afterBundling: (inputDir: string, outputDir: string) => [
              ...afterBundlingCommands(entry, inputDir, outputDir),
              ...separate.flatMap((pkg) => separatePackageCommands(inputDir, outputDir, pkg)),
            ],
          },
        },
      });
      ack(f, 'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]', 'AWS\'s minimal managed policy for writing the function\'s own CloudWatch logs.');
      ack(f, 'IAM5[Resource::*]', 'Active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords have no resource-level permissions.');
      made.push(f);
      return f;
    };
    /**
     * A function with exactly the grants its code needs, read off its bundle (`needs.ts`): the table,
     * document objects, sending to the queues it enqueues on, the signing secret, the TOTP key, the
     * Stripe secret and posting to progress connections, each only when the module using it is bundled.
     */
    const fn = (id: string, entry: string, memorySize: number, timeout: Duration) => {
      const f = bundled(id, entry, memorySize, timeout, environment);
      const needs = needsOf(ROOT, entry);
      if (needs.table) {
        table.grantReadWriteData(f);
        ack(f, `IAM5[${tableIndexes}]`, 'Query on the table\'s GSI (GSI1, the staff list of accounts); CDK\'s grant covers the table\'s indexes with index/*.');
      }
      if (needs.documents) {
        // Object-level access only, per key prefix (no s3:GetObject* wildcards from bucket.grantReadWrite); no listing.
        const access = DOCUMENT_ACCESS[entry];
        if (!access) throw new Error(`${entry} stores documents: say which prefixes it reads and writes in DOCUMENT_ACCESS`);
        for (const [action, prefixes] of [['s3:GetObject', access.get], ['s3:PutObject', access.put]] as const) {
          f.addToRolePolicy(new PolicyStatement({ actions: [action], resources: prefixes.map((p) => bucket.arnForObjects(`${p}/*`)) }));
          for (const p of prefixes) ack(f, `IAM5[Resource::<${this.getLogicalId(bucket.node.defaultChild as never)}.Arn>/${p}/*]`, 'Object keys are per tenant and per record, not known at deploy time; one action on one prefix of this one bucket.');
        }
      }
      for (const q of needs.queues) queues[q].grantSendMessages(f);
      if (needs.signingKey) signingKey.grantRead(f);
      // Only what sealing needs: TOTP secrets, the refresh grace (no GenerateDataKey*/ReEncrypt*).
      if (needs.totpKey) totpKey.grant(f, 'kms:Encrypt', 'kms:Decrypt');
      if (needs.stripeSecret && stripeSecretArn) f.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [stripeSecretArn] }));
      if (needs.assumeRole) {
        // Discovery assumes customers' roles: their accounts are unknown at deploy time, so the resource is every
        // role, and the condition keeps the call to requests carrying one of our generated external ids (`icat-…`),
        // which the customer's trust policy requires.
        f.addToRolePolicy(new PolicyStatement({ actions: ['sts:AssumeRole'], resources: [`arn:${this.partition}:iam::*:role/*`], conditions: { StringLike: { 'sts:ExternalId': 'icat-*' } } }));
        ack(f, 'IAM5[Resource::arn:<AWS::Partition>:iam::*:role/*]', "Customers' discovery roles live in their own accounts, unknown at deploy time; only with one of our generated external ids.");
      }
      if (needs.push) {
        progressStage.grantManagementApiAccess(f);
        ack(f, `IAM5[Resource::arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${this.getLogicalId(this.progressApi.node.defaultChild as never)}>/progress/*/@connections/*]`, 'Connection ids are made per client at $connect; posting is limited to this API\'s progress stage.');
      }
      return f;
    };

    // One function per route group that has routes; the group's integration serves all its routes.
    for (const group of httpFunctionGroups()) {
      const routes = routeTable[group];
      // 1024 MB: argon2id hashing is CPU-bound, and Lambda CPU scales with memory.
      const { id: fnId, entry: fnEntry } = httpFunction(group);
      const f = fn(fnId, fnEntry, 1024, HTTP_TIMEOUT);
      this.httpFunctions[group] = f;
      // One invoke permission per function (not per route): Lambda resource policies are capped at 20 KB.
      const integration = new HttpLambdaIntegration(`${pascal(group)}Integration`, f, { scopePermissionToRoute: false });
      for (const r of routes) this.api.addRoutes({ path: r.path, methods: [HttpMethod[r.method]], integration });
      // Anything API Gateway has no route for reaches our router, which answers with our own 404 body.
      if (group === FALLBACK_GROUP) new HttpRoute(this.api, 'DefaultRoute', { httpApi: this.api, routeKey: HttpRouteKey.DEFAULT, integration });
    }

    // --- Workers ----------------------------------------------------------------------------------
    for (const [queue, worker] of Object.entries(workerTable) as [QueueName, { folder: string }][]) {
      const { id: fnId, entry: fnEntry } = workerFunction(worker.folder);
      const run = WORKER_RUN[queue];
      const f = fn(fnId, fnEntry, 512, run?.timeout ?? WORKER_TIMEOUT);
      if (run) f.addEnvironment('NODE_OPTIONS', `${environment.NODE_OPTIONS} ${run.nodeOptions}`);
      f.addEventSource(new SqsEventSource(queues[queue], { batchSize: run?.batchSize ?? 10, reportBatchItemFailures: true }));
      this.workers[queue] = f;
    }
    const mailer = this.workers.mail;
    if (mailer) {
      mailer.addToRolePolicy(
        new PolicyStatement({
          actions: ['ses:SendEmail', 'ses:SendRawEmail'],
          resources: [this.formatArn({ service: 'ses', resource: 'identity', resourceName: '*' })],
        }),
      );
      ack(mailer, 'IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]', 'The verified sender identity (domain or address of MAIL_FROM) is configured per deployment; SendEmail only.');
    }

    // --- Outbox → events and mail queues -------------------------------------------------------------
    // Only inserted outbox items reach the function (the filter is evaluated by Lambda, not billed);
    // a failure retries from the failed record; 24 h of retention.
    // Least privilege: it reads the stream (the event source's grant) and sends to the events and mail queues, nothing else.
    this.outboxFunction = bundled(SINGLE_FUNCTIONS.outbox.id, SINGLE_FUNCTIONS.outbox.entry, 256, WORKER_TIMEOUT, {
      STAGE: 'cloud',
      NODE_OPTIONS: '--enable-source-maps',
      TABLE_NAME: table.tableName,
      EVENTS_QUEUE_URL: queues.events.queueUrl,
      MAIL_QUEUE_URL: queues.mail.queueUrl,
    });
    queues.events.grantSendMessages(this.outboxFunction);
    queues.mail.grantSendMessages(this.outboxFunction);
    this.outboxFunction.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        reportBatchItemFailures: true,
        // A record that keeps failing must not hold its shard (every later event) for the stream's 24 hours:
        // after 10 tries (the failing part of a batch split off) its position goes to the alarmed events
        // dead-letter queue; the outbox item itself stays in the table until its consumer removes it, and
        // the webhook retry schedule's resend sweep hands it over again (shared/outbox.ts, issue 41).
        bisectBatchOnError: true,
        retryAttempts: 10,
        onFailure: new SqsDlq(dlqs.events),
        filters: [FilterCriteria.filter({ eventName: FilterRule.isEqual('INSERT'), dynamodb: { NewImage: { PK: { S: FilterRule.isEqual('OUTBOX') } } } })],
      }),
    );
    ack(this.outboxFunction, 'IAM5[Resource::*]', 'dynamodb:ListStreams (granted by the stream event source) has no resource-level permissions.');

    // --- Progress WebSocket ------------------------------------------------------------------------
    const wsAuthorizer = fn(SINGLE_FUNCTIONS.progressAuthorizer.id, SINGLE_FUNCTIONS.progressAuthorizer.entry, 256, Duration.seconds(10));
    const wsHandler = fn(SINGLE_FUNCTIONS.progressConnections.id, SINGLE_FUNCTIONS.progressConnections.entry, 256, Duration.seconds(10));
    const wsIntegration = new WebSocketLambdaIntegration('ProgressConnections', wsHandler);
    this.progressApi.addRoute('$connect', {
      integration: wsIntegration,
      authorizer: new WebSocketLambdaAuthorizer('ProgressTicket', wsAuthorizer, { identitySource: ['route.request.querystring.ticket'] }),
    });
    this.progressApi.addRoute('$disconnect', { integration: wsIntegration });
    // Any message asks for the job's current state (a client that connects late still learns it).
    this.progressApi.addRoute('$default', { integration: wsIntegration });
    ack(this.progressApi, 'APIG4', '$connect is authorized by the ticket authorizer; $disconnect needs none (API Gateway sends it).');
    ack(progressStage, 'APIG1', 'Connection events are logged by the connection functions; per-frame access logs would add nothing for a one-way progress channel.');

    // --- Deadlines ---------------------------------------------------------------------------------
    // A sweep over one time-ordered partition of due deadlines rather than a one-time schedule per
    // window (docs/decisions.md): no scheduler role, cancelling is deleting an item, and the local
    // runtime and tests run the very same handler.
    this.deadlinesFunction = fn(SINGLE_FUNCTIONS.deadlines.id, SINGLE_FUNCTIONS.deadlines.entry, 512, Duration.minutes(5));
    // Webhook retries: the same pattern, every minute (the schedule's waits run from 5 s to 24 h; SQS delays stop at 15 min);
    // the same run hands outbox items still waiting long after their write to their queues again (its grants follow from its bundle).
    this.webhookRetriesFunction = fn(SINGLE_FUNCTIONS.webhookRetries.id, SINGLE_FUNCTIONS.webhookRetries.entry, 512, Duration.minutes(5));
    totpKey.grant(this.webhookRetriesFunction, 'kms:Decrypt');
    new Rule(this, 'WebhookRetriesSchedule', { schedule: Schedule.rate(Duration.minutes(1)), targets: [new LambdaFunction(this.webhookRetriesFunction, { retryAttempts: 2 })] });
    new Rule(this, 'DeadlinesSchedule', { schedule: Schedule.rate(Duration.minutes(15)), targets: [new LambdaFunction(this.deadlinesFunction, { retryAttempts: 2 })] });

    // --- Seeding on deploy -------------------------------------------------------------------------
    // A fresh table has no plans (GET /plans → [], POST /projects → 403): the local runtime seeds at
    // start, the cloud runs the same code from a Trigger after the table exists. The Trigger points at
    // the function's current version, so it runs on the first deploy and again whenever the function
    // changes (code, hence the plan catalogue, a listing layout, table name or admin secret ARN).
    // Re-runs are harmless. It runs before every other function is created or updated, so new code
    // never serves from a table missing the listings it reads (the backfill, docs/data-model.md).
    const adminSecretArn = props.bootstrapAdminSecretArn;
    if (adminSecretArn && !Token.isUnresolved(adminSecretArn) && !/^arn:[\w-]+:secretsmanager:[\w-]+:\d{12}:secret:.+-[A-Za-z0-9]{6}$/.test(adminSecretArn)) {
      // IAM matches the exact ARN: a partial one (without the suffix) would only fail at deploy time.
      throw new Error(`bootstrapAdminSecretArn must be a secret's full ARN (ending in -XXXXXX), got: ${adminSecretArn}`);
    }
    const others = [...made];
    const seeder = bundled(SINGLE_FUNCTIONS.seed.id, SINGLE_FUNCTIONS.seed.entry, SEED_RUN.memoryMb, SEED_RUN.timeout, {
      STAGE: 'cloud',
      NODE_OPTIONS: '--enable-source-maps',
      TABLE_NAME: table.tableName,
      ...(adminSecretArn ? { BOOTSTRAP_ADMIN_SECRET_ARN: adminSecretArn } : {}),
    });
    // Least privilege, the table only (no index): plan puts; the backfill's Scan, its marker's read and
    // its listings' puts and deletes; the staff account reads the e-mail sentinel and the account.
    seeder.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Scan'], resources: [table.tableArn] }));
    if (adminSecretArn) seeder.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [adminSecretArn] }));
    this.seedFunction = seeder;
    new Trigger(this, 'SeedTrigger', { handler: seeder, executeAfter: [table], executeBefore: others, timeout: SEED_RUN.timeout, executeOnHandlerChange: true });

    // --- Monitoring and outputs -------------------------------------------------------------------
    new Alarm(this, 'Api5xxAlarm', {
      alarmDescription: 'The API answered 5xx (a Lambda crashed, timed out or was throttled)',
      metric: this.stage.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    // A worker that throws fails its whole batch (partial failures are reported, not thrown): alarm on any.
    for (const [queue, worker] of Object.entries(this.workers)) {
      new Alarm(this, `${pascal(queue)}WorkerErrorsAlarm`, {
        alarmDescription: `The ${queue} worker failed (an error, a timeout or a crash)`,
        metric: worker.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    }
    // One dashboard: every function's duration (p50, p99), errors and throttles; the API's 4xx/5xx; queue age and dead letters.
    const functions = { ...this.httpFunctions, ...Object.fromEntries(Object.entries(this.workers).map(([q, f]) => [`${q} worker`, f])), deadlines: this.deadlinesFunction };
    const perFunction = (title: string, metric: (f: NodejsFunction, label: string) => IMetric) =>
      new GraphWidget({ title, width: 12, left: Object.entries(functions).map(([label, f]) => metric(f, label)) });
    const period = Duration.minutes(5);
    new Dashboard(this, 'Dashboard', {
      widgets: [
        [
          perFunction('Duration p50 (ms)', (f, label) => f.metricDuration({ statistic: 'p50', period, label })),
          perFunction('Duration p99 (ms)', (f, label) => f.metricDuration({ statistic: 'p99', period, label })),
        ],
        [
          perFunction('Errors', (f, label) => f.metricErrors({ statistic: 'Sum', period, label })),
          perFunction('Throttles', (f, label) => f.metricThrottles({ statistic: 'Sum', period, label })),
        ],
        [
          new GraphWidget({
            title: 'API answers 4xx / 5xx', width: 12,
            left: [this.stage.metricClientError({ statistic: 'Sum', period, label: '4xx' }), this.stage.metricServerError({ statistic: 'Sum', period, label: '5xx' })],
          }),
          new GraphWidget({
            title: 'Queues: age of the oldest message (s) / dead letters', width: 12,
            left: Object.entries(queues).map(([name, q]) => q.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period, label: `${name} age` })),
            right: Object.entries(dlqs).map(([name, q]) => q.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period, label: `${name} DLQ` })),
          }),
        ],
      ],
    });
    new CfnOutput(this, 'ApiUrl', { value: this.stage.url, description: 'The API\'s own endpoint (Bearer-token clients; browsers use SiteUrl)' });
    new CfnOutput(this, 'SiteUrl', { value: this.web.url, description: 'The dashboard, and the API under the same origin' });
  }
}
