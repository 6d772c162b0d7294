import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { allRoutes, FALLBACK_GROUP, routeTable } from '../../functions/route-table.ts';
import { workerTable } from '../../functions/workers/index.ts';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CatalogStack } from '../../infra/cdk/stack.ts';
import { JOBS_HEAP_MB, stackFunctions } from '../../infra/cdk/functions.ts';
import { LIVE_STREAM_TYPES } from '#domain/live';
import { synth, useStandardStack } from '../helpers/cdk-synth.ts';
import './web-hosting.cases.ts';

const ROOT = join(import.meta.dirname, '..', '..');
// Same feature flags as `cdk synth` (cdk.json), as the helper's apps are given.
const { context } = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8'));

/** Active tracing's grant, on every function's role (X-Ray has no resource-level permissions). */
const XRAY = { Action: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'], Effect: 'Allow', Resource: '*' };

let stack: CatalogStack;
let template: Template;

// The dashboard hosting's cases run here too, on the same synthesis (test/infra/web-hosting.cases.ts).
const standard = useStandardStack();
beforeAll(() => {
  ({ stack, template } = standard());
});

const groupsWithFunctions = Object.entries(routeTable)
  .filter(([group, routes]) => routes.length > 0 || group === FALLBACK_GROUP)
  .map(([group]) => group);

describe('CatalogStack', () => {
  it('has the single table with PITR, TTL and its GSI', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'PK', KeyType: 'HASH' },
        { AttributeName: 'SK', KeyType: 'RANGE' },
      ],
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: 'expires_at_epoch', Enabled: true },
      GlobalSecondaryIndexes: [
        Match.objectLike({
          IndexName: 'GSI1',
          KeySchema: [
            { AttributeName: 'GSI1PK', KeyType: 'HASH' },
            { AttributeName: 'GSI1SK', KeyType: 'RANGE' },
          ],
        }),
        Match.objectLike({
          IndexName: 'GSI2',
          KeySchema: [
            { AttributeName: 'GSI2PK', KeyType: 'HASH' },
            { AttributeName: 'GSI2SK', KeyType: 'RANGE' },
          ],
        }),
        Match.objectLike({
          IndexName: 'GSI3',
          KeySchema: [
            { AttributeName: 'GSI3PK', KeyType: 'HASH' },
            { AttributeName: 'GSI3SK', KeyType: 'RANGE' },
          ],
        }),
      ],
    });
  });

  it('has one Lambda per route group with routes, one per worker, the deadline sweep and the seeder, all Node 24 arm64 ESM bundles', () => {
    const workers = Object.keys(workerTable).length;
    expect(Object.keys(stack.httpFunctions).sort()).toEqual(groupsWithFunctions.sort());
    expect(stack.httpFunctions.account).toBeUndefined(); // no routes yet → no function
    const ours = groupsWithFunctions.length + workers + 7; // + the deadline sweep, the webhook retry sweep, the outbox reader, the topology snapshots' keeper, the progress WebSocket's authorizer and connections, the seeding function
    template.resourcePropertiesCountIs(
      'AWS::Lambda::Function',
      { Runtime: 'nodejs24.x', Architectures: ['arm64'], Handler: 'index.handler' },
      ours,
    );
    template.resourceCountIs('AWS::Lambda::Function', ours + 2); // + CDK's Trigger provider and its BucketDeployment provider (the dashboard)
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          STAGE: 'cloud',
          MAIL_TRANSPORT: 'ses',
          NODE_OPTIONS: '--enable-source-maps',
          TABLE_NAME: Match.anyValue(),
          BUCKET_NAME: Match.anyValue(),
          SIGNING_KEY_SECRET_ARN: Match.anyValue(),
          TOTP_KMS_KEY_ID: Match.anyValue(),
          JOBS_QUEUE_URL: Match.anyValue(),
          EVENTS_QUEUE_URL: Match.anyValue(),
          MAIL_QUEUE_URL: Match.anyValue(),
        }),
      },
    });
    // Workers consume their queue with partial batch failures.
    template.resourcePropertiesCountIs(
      'AWS::Lambda::EventSourceMapping',
      { FunctionResponseTypes: ['ReportBatchItemFailures'] },
      workers + 1,
    ); // + the outbox reader
  });

  it('routes every entry of the route table, plus $default to the fallback group', () => {
    // Every HTTP route and $default, plus the progress WebSocket's $connect, $disconnect and $default.
    template.resourceCountIs('AWS::ApiGatewayV2::Route', allRoutes().length + 1 + 3);
    for (const { route } of allRoutes())
      template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: `${route.method} ${route.path}` });
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: 'POST /auth/login' });
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: 'GET /openapi.json' });
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: '$default' });
    // The $default route and GET /openapi.json share the fallback group's integration.
    const routes = template.findResources('AWS::ApiGatewayV2::Route');
    const target = (key: string) => Object.values(routes).find((r) => r.Properties.RouteKey === key)?.Properties.Target;
    expect(target('$default')).toEqual(target('GET /openapi.json'));
    // The API reference page and its script: the docs function answers them.
    expect(target('GET /docs')).toEqual(target('GET /openapi.json'));
    expect(target('GET /docs/redoc.standalone.js')).toEqual(target('GET /openapi.json'));
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: Match.objectLike({ DestinationArn: Match.anyValue() }),
    });
    template.hasOutput('ApiUrl', {});
  });

  it('has a queue and an SSL-only DLQ per queue name, alarmed on depth', () => {
    template.resourceCountIs('AWS::SQS::Queue', 6);
    template.resourcePropertiesCountIs(
      'AWS::SQS::Queue',
      { RedrivePolicy: Match.objectLike({ maxReceiveCount: 5 }) },
      3,
    );
    template.resourcePropertiesCountIs(
      'AWS::SQS::QueuePolicy',
      {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      },
      6,
    );
    template.resourcePropertiesCountIs(
      'AWS::CloudWatch::Alarm',
      { MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' },
      3,
    );
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: '5xx', Namespace: 'AWS/ApiGateway' });
  });

  it('has a private, encrypted documents bucket that expires exports after 30 days', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      LifecycleConfiguration: {
        Rules: Match.arrayWith([Match.objectLike({ Prefix: 'exports/', ExpirationInDays: 30, Status: 'Enabled' })]),
      },
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'documents/' }),
    });
  });

  it('has the generated signing key secret and the TOTP KMS key', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({ PasswordLength: 64 }),
    });
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
  });

  it('seeds and backfills on deploy: a Trigger runs the seeding function after the table and before every other function, which may only read, put and delete items and scan the table', () => {
    const seeder = seedIds(stack);
    const tableId = Object.keys(template.findResources('AWS::DynamoDB::Table'))[0];
    template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.handler',
      Role: { 'Fn::GetAtt': [seeder.role, 'Arn'] },
      // Only what seeding reads: no queues, bucket or signing key, and no admin secret unless configured.
      Environment: {
        Variables: {
          STAGE: 'cloud',
          NODE_OPTIONS: '--enable-source-maps',
          TABLE_NAME: { Ref: tableId },
          POWERTOOLS_SERVICE_NAME: 'seed',
          POWERTOOLS_METRICS_NAMESPACE: 'InfraCatalog',
          POWERTOOLS_TRACE_ENABLED: 'true',
          DYNAMODB_ENDPOINT: '',
        },
      },
    });
    const triggers = Object.values(template.findResources('Custom::Trigger'));
    expect(triggers).toHaveLength(1);
    expect(triggers[0].DependsOn).toContain(tableId);
    // The function's current version: a changed function (code, plan catalogue, environment) runs again on deploy.
    expect(triggers[0].Properties).toMatchObject({
      HandlerArn: { Ref: expect.stringMatching(new RegExp(`^${seeder.fn.replace(/[0-9A-F]{8}$/, '')}CurrentVersion`)) },
      InvocationType: 'RequestResponse',
      ExecuteOnHandlerChange: true,
      Timeout: String(14 * 60 * 1000),
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Role: { 'Fn::GetAtt': [seeder.role, 'Arn'] },
      Timeout: 14 * 60,
      MemorySize: 2048,
    });
    // New code never serves before the backfill it may need: every other function waits for the trigger.
    const triggerId = Object.keys(template.findResources('Custom::Trigger'))[0];
    const functions = Object.entries(template.findResources('AWS::Lambda::Function')).filter(
      ([id, f]) => id !== seeder.fn && f.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME,
    );
    expect(functions.length).toBeGreaterThan(10);
    for (const [id, f] of functions) expect(f.DependsOn ?? [], id).toContain(triggerId);
    // Exactly this one statement (besides X-Ray's, as every function): no secret, no index, no other table action.
    expect(seederStatements(template, seeder.role)).toEqual([
      XRAY,
      {
        Action: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Scan'],
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [tableId, 'Arn'] },
      },
    ]);
  });

  it('with bootstrapAdminSecretArn, lets the seeder read exactly that secret (and the items it checks)', () => {
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:catalog/bootstrap-admin-AbCdEf';
    const { stack: s, template: t } = synth({ bootstrapAdminSecretArn: arn });
    const seeder = seedIds(s);
    t.hasResourceProperties('AWS::Lambda::Function', {
      Role: { 'Fn::GetAtt': [seeder.role, 'Arn'] },
      Environment: { Variables: Match.objectLike({ BOOTSTRAP_ADMIN_SECRET_ARN: arn }) },
    });
    const tableId = Object.keys(t.findResources('AWS::DynamoDB::Table'))[0];
    expect(seederStatements(t, seeder.role)).toEqual([
      XRAY,
      {
        Action: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Scan'],
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [tableId, 'Arn'] },
      },
      { Action: 'secretsmanager:GetSecretValue', Effect: 'Allow', Resource: arn },
    ]);
    // No other role can read it.
    const readers = Object.values(t.findResources('AWS::IAM::Policy')).filter((p) => JSON.stringify(p).includes(arn));
    expect(readers).toHaveLength(1);
    expect(new AwsSolutionsChecks().validateScope(s).success).toBe(true);
  });

  it('with stripeSecretArn, Stripe is the payment provider and only the billing function and the jobs worker read its secret', () => {
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:catalog/stripe-AbCdEf';
    const { stack: s, template: t } = synth({ stripeSecretArn: arn });
    const roleOf = (f: { role?: { node: { defaultChild?: unknown } } }) =>
      s.getLogicalId(f.role!.node.defaultChild as CfnFunction);
    t.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_ARN: arn }) },
    });
    const readers = Object.values(t.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties.PolicyDocument).includes(arn))
      .map((p) => p.Properties.Roles[0].Ref)
      .sort();
    expect(readers).toEqual([roleOf(s.httpFunctions.billing), roleOf(s.workers.jobs)].sort());
    // Without it there is no payment provider.
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ PAYMENT_PROVIDER: 'none' }) },
    });
  });

  it('lets only the integrations function and the jobs worker assume roles, and only with a generated external id', () => {
    const roleOf = (f: { role?: { node: { defaultChild?: unknown } } }) =>
      stack.getLogicalId(f.role!.node.defaultChild as CfnFunction);
    const statements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap((p) =>
      (p.Properties.PolicyDocument.Statement as Record<string, unknown>[]).map((st) => ({
        role: p.Properties.Roles[0].Ref as string,
        st,
      })),
    );
    const assumers = statements.filter(({ st }) => JSON.stringify(st.Action).includes('sts:AssumeRole'));
    expect(assumers.map((a) => a.role).sort()).toEqual(
      [roleOf(stack.httpFunctions.integrations), roleOf(stack.workers.jobs)].sort(),
    );
    for (const { st } of assumers) expect(st.Condition).toEqual({ StringLike: { 'sts:ExternalId': 'icat-*' } });
    // The jobs worker opens sealed API tokens.
    expect(
      statements.some(
        ({ role, st }) => role === roleOf(stack.workers.jobs) && JSON.stringify(st.Action).includes('kms:Decrypt'),
      ),
    ).toBe(true);
  });

  it('has the progress WebSocket API: $connect behind the ticket authorizer; only the jobs worker, the connections function, integrations, impex and the outbox reader may post', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'WEBSOCKET' });
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'REQUEST',
      IdentitySource: ['route.request.querystring.ticket'],
    });
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: '$connect', AuthorizationType: 'CUSTOM' });
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: '$disconnect' });
    const posters = Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
      JSON.stringify(p.Properties.PolicyDocument).includes('execute-api:ManageConnections'),
    );
    expect(posters).toHaveLength(5); // the jobs worker, the connections function, integrations (its progress ticket shares the connection code), impex (a job's cancel is pushed), the outbox reader (live changes)
    expect(posters.map((p) => p.Properties.Roles[0].Ref)).toContain(
      stack.getLogicalId(stack.workers.jobs.role!.node.defaultChild as CfnFunction),
    );
  });

  it('grants each function only what its code uses (read off its bundle), as this table expects', () => {
    const { stack: s, template: t } = synth({
      stripeSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:catalog/stripe-AbCdEf',
    });
    const id = (c: { node: { defaultChild?: unknown } }) => s.getLogicalId(c.node.defaultChild as CfnFunction);
    const queueOf = Object.fromEntries(
      Object.entries(t.findResources('AWS::SQS::Queue')).map(([logical]) => [
        logical,
        logical.replace(/Queue.*$/, '').toLowerCase(),
      ]),
    );
    /** A role's grants in a few words: table, queue:<name>, s3 <get|put> <prefix>, signing-secret, totp-key, stripe-secret, websocket, ses, xray. */
    const grantsOf = (roleId: string) => {
      const out = new Set<string>();
      for (const policy of Object.values(t.findResources('AWS::IAM::Policy'))) {
        if (!policy.Properties.Roles.some((r: { Ref: string }) => r.Ref === roleId)) continue;
        for (const st of policy.Properties.PolicyDocument.Statement) {
          const actions = [st.Action].flat().join(' ');
          const resource = JSON.stringify(st.Resource);
          if (actions.includes('dynamodb:')) out.add('table');
          if (actions.includes('sqs:SendMessage'))
            for (const [logical, name] of Object.entries(queueOf))
              if (resource.includes(`"${logical}"`)) out.add(`queue:${name}`);
          // Documents by action and key prefix (a presigned URL carries exactly the signer's rights).
          if (actions.includes('s3:'))
            for (const m of resource.matchAll(/\/([a-z]+)\/\*/g))
              out.add(`${actions.replace('s3:', 's3 ').replace('Object', '').toLowerCase()} ${m[1]}`);
          if (actions.includes('s3:') && /"\/\*"/.test(resource)) out.add('s3 whole bucket');
          if (actions.includes('kms:')) out.add('totp-key');
          if (actions.includes('secretsmanager:') && resource.includes('SigningKey')) out.add('signing-secret');
          if (actions.includes('secretsmanager:') && resource.includes('stripe')) out.add('stripe-secret');
          if (actions.includes('execute-api:ManageConnections')) out.add('websocket');
          if (actions.includes('ses:')) out.add('ses');
          if (actions.includes('xray:PutTraceSegments')) out.add('xray');
        }
      }
      return [...out].sort();
    };
    const functions: Record<string, { role?: { node: { defaultChild?: unknown } } }> = {
      ...Object.fromEntries(Object.entries(s.httpFunctions).map(([g, f]) => [g, f])),
      ...Object.fromEntries(Object.entries(s.workers).map(([q, f]) => [`worker:${q}`, f])),
      deadlines: s.deadlinesFunction,
      webhookRetries: s.webhookRetriesFunction,
    };
    const actual = Object.fromEntries(Object.entries(functions).map(([name, f]) => [name, grantsOf(id(f.role!))]));
    const http = ['signing-secret', 'table', 'xray'];
    // Events and mail leave through the outbox (written with the change; the stream's reader sends them on), so no writer sends
    // to the events or mail queue; only the resend sweep (the webhook retry schedule) hands overdue outbox items to both.
    expect(actual).toEqual({
      auth: ['signing-secret', 'table', 'totp-key', 'xray'],
      admin: http,
      billing: ['queue:jobs', 'signing-secret', 'stripe-secret', 'table', 'xray'],
      // A project's single sign-on connection seals its client secret with the key that seals TOTP secrets.
      projects: ['signing-secret', 'table', 'totp-key', 'xray'],
      // An owner's role assignment that makes someone a member tells them by mail.
      environments: http,
      // Deleting a custom field definition takes its values off every item as a job.
      structure: ['queue:jobs', ...http],
      services: http,
      floors: http,
      topology: http,
      networks: http,
      invites: http,
      lifecycle: ['queue:jobs', ...http],
      // It reads an upload's size (HeadObject needs s3:GetObject) before starting its import (found by start:deployed).
      // A cancelled job's end is pushed to its followers at once.
      impex: [
        'queue:jobs',
        's3 get exports',
        's3 get imports',
        's3 put imports',
        'signing-secret',
        'table',
        'websocket',
        'xray',
      ],
      integrations: ['queue:jobs', 'signing-secret', 'table', 'totp-key', 'websocket', 'xray'],
      webhooks: ['signing-secret', 'table', 'totp-key', 'xray'],
      audit: http,
      docs: http,
      'worker:mail': ['ses', 'table', 'xray'],
      'worker:jobs': [
        's3 get imports',
        's3 put exports',
        'signing-secret',
        'stripe-secret',
        'table',
        'totp-key',
        'websocket',
        'xray',
      ],
      'worker:events': ['table', 'totp-key', 'xray'],
      deadlines: ['table', 'xray'],
      webhookRetries: ['queue:events', 'queue:mail', 'table', 'totp-key', 'xray'],
    });
  });

  it('traces every function with X-Ray (active) and names its service, metrics namespace and tracing in its environment', () => {
    // Ours (the stage's environment), not CDK's own custom-resource providers.
    const functions = Object.entries(template.findResources('AWS::Lambda::Function')).filter(
      ([, f]) => f.Properties.Environment?.Variables?.STAGE === 'cloud',
    );
    expect(functions.length).toBeGreaterThanOrEqual(24);
    const services = new Set<string>();
    for (const [logical, f] of functions) {
      expect(f.Properties.TracingConfig, logical).toEqual({ Mode: 'Active' });
      expect(f.Properties.Environment.Variables, logical).toMatchObject({
        POWERTOOLS_METRICS_NAMESPACE: 'InfraCatalog',
        POWERTOOLS_TRACE_ENABLED: 'true',
        POWERTOOLS_SERVICE_NAME: expect.stringMatching(/^[a-z][a-z0-9-]*$/),
      });
      services.add(f.Properties.Environment.Variables.POWERTOOLS_SERVICE_NAME);
    }
    expect(services.size).toBe(functions.length); // one service name per function
    expect(services).toContain('auth');
    expect(services).toContain('mail-worker');
  });

  it('has a dashboard of every function, the API and the queues, and alarms on worker errors and dead letters', () => {
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    for (const title of [
      'Duration p50 (ms)',
      'Duration p99 (ms)',
      'Errors',
      'Throttles',
      'API answers 4xx / 5xx',
      'dead letters',
    ])
      expect(body).toContain(title);
    for (const group of Object.keys(stack.httpFunctions)) expect(body).toContain(group);
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map(
      (a) => a.Properties.AlarmDescription as string,
    );
    for (const queue of Object.keys(workerTable))
      expect(alarms).toContain(`The ${queue} worker failed (an error, a timeout or a crash)`);
    expect(alarms.filter((a) => a.includes('dead-letter queue'))).toHaveLength(3);
  });

  it('streams the table into the outbox reader: inserted outbox items and the live kinds only, partial batch failures, which may send to the events and mail queues and post to WebSocket connections', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
    });
    const fnId = stack.getLogicalId(stack.outboxFunction.node.defaultChild as never);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: fnId },
      EventSourceArn: Match.anyValue(),
      StartingPosition: 'TRIM_HORIZON',
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      FilterCriteria: {
        Filters: [
          { Pattern: JSON.stringify({ eventName: ['INSERT'], dynamodb: { NewImage: { PK: { S: ['OUTBOX'] } } } }) },
          { Pattern: JSON.stringify({ dynamodb: { NewImage: { type: { S: LIVE_STREAM_TYPES } } } }) },
          {
            Pattern: JSON.stringify({
              eventName: ['REMOVE'],
              dynamodb: { OldImage: { type: { S: LIVE_STREAM_TYPES } } },
            }),
          },
        ],
      },
      // A poison record does not hold the shard: split off, tried 10 times, then its position goes to the events DLQ.
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
    });
    // Least privilege: the stream, the table (live changes are numbered and kept there), posting to WebSocket
    // connections, and sending to the events and mail queues only (no bucket, no other queue).
    const role = stack.getLogicalId(stack.outboxFunction.role!.node.defaultChild as never);
    const policy = JSON.stringify(
      Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
        JSON.stringify(p.Properties.Roles).includes(role),
      ),
    );
    expect(policy).toContain('sqs:SendMessage');
    expect(policy).toContain('dynamodb:GetRecords');
    expect(policy).toContain('execute-api:ManageConnections');
    expect(policy).not.toContain('s3:');
    const eventsQueue = stack.getLogicalId(stack.node.findChild('EventsQueue').node.defaultChild as never);
    const jobsQueue = stack.getLogicalId(stack.node.findChild('JobsQueue').node.defaultChild as never);
    const mailQueue = stack.getLogicalId(stack.node.findChild('MailQueue').node.defaultChild as never);
    expect(policy).toContain(eventsQueue);
    expect(policy).toContain(mailQueue);
    expect(policy).not.toContain(jobsQueue);
  });

  it('streams the table into the topology snapshots’ keeper: only the drawn kinds’ items, bisected and retried, which reads and writes the table and nothing else', () => {
    const fnId = stack.getLogicalId(stack.topologyKeeperFunction.node.defaultChild as never);
    const drawn = ['SERVICE#', 'GROUP#', 'FLOOR#', 'NETWORK#', 'CONN#', 'LINK#'].map((prefix) => ({ prefix }));
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: fnId },
      EventSourceArn: Match.anyValue(),
      FilterCriteria: {
        Filters: [
          {
            Pattern: JSON.stringify({ dynamodb: { Keys: { PK: { S: [{ prefix: 'PROJECT#' }] }, SK: { S: drawn } } } }),
          },
        ],
      },
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
    });
    const role = stack.getLogicalId(stack.topologyKeeperFunction.role!.node.defaultChild as never);
    const policy = JSON.stringify(
      Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
        JSON.stringify(p.Properties.Roles).includes(role),
      ),
    );
    expect(policy).toContain('dynamodb:PutItem');
    expect(policy).toContain('dynamodb:GetRecords');
    expect(policy).not.toContain('s3:');
    expect(policy).not.toContain('sqs:SendMessage');
  });

  it('runs exports and imports of any size: the jobs worker takes one message for up to 15 minutes, its heap capped within its 512 MB; its queue waits 6 times that', () => {
    const fnId = stack.getLogicalId(stack.workers.jobs.node.defaultChild as never);
    const props = template.toJSON().Resources[fnId].Properties;
    expect(props.Timeout).toBe(900);
    expect(props.MemorySize).toBe(512);
    expect(props.Environment.Variables.NODE_OPTIONS).toBe(
      `--enable-source-maps --max-old-space-size=${JOBS_HEAP_MB} --max-semi-space-size=16`,
    );
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { FunctionName: { Ref: fnId }, BatchSize: 1 });
    const queueId = stack.getLogicalId(stack.node.findChild('JobsQueue').node.defaultChild as never);
    expect(template.toJSON().Resources[queueId].Properties.VisibilityTimeout).toBe(5400);
    // The other workers keep a minute, batches of 10, and V8's own heap sizing.
    const mailId = stack.getLogicalId(stack.workers.mail.node.defaultChild as never);
    expect(template.toJSON().Resources[mailId].Properties.Timeout).toBe(60);
    expect(template.toJSON().Resources[mailId].Properties.Environment.Variables.NODE_OPTIONS).toBe(
      '--enable-source-maps',
    );
  });

  it('sweeps webhook retries every minute; what signs deliveries may decrypt the sealed secrets', () => {
    const fnId = stack.getLogicalId(stack.webhookRetriesFunction.node.defaultChild as never);
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [fnId, 'Arn'] } })],
    });
    for (const f of [stack.webhookRetriesFunction, stack.workers.events]) {
      const role = stack.getLogicalId(f.role!.node.defaultChild as never);
      const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
        JSON.stringify(p.Properties.Roles).includes(role),
      );
      expect(JSON.stringify(policies)).toContain('kms:Decrypt');
    }
  });

  it('sweeps deadlines every 15 minutes with the deadlines function', () => {
    const fnId = stack.getLogicalId(stack.deadlinesFunction.node.defaultChild as CfnFunction);
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(15 minutes)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [fnId, 'Arn'] } })],
    });
  });

  it('refuses a partial secret ARN, which IAM would not match', () => {
    expect(() =>
      synth({
        bootstrapAdminSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:catalog/bootstrap-admin',
      }),
    ).toThrow(/must be a secret's full ARN/);
  });

  it('is usable by `sam local invoke` (item 8a): every function of the list carries the asset metadata SAM reads, declares DYNAMODB_ENDPOINT for its --env-vars file, and has a sample event', () => {
    // `cdk synth` writes aws:asset:path / aws:asset:property on each function (its asset and path metadata are on by
    // default; the helper's apps ask for them as it does): SAM replaces Code with the bundled folder under cdk.out from
    // them, and finds a function by the construct id in aws:cdk:path. cdk.json names none of the CLI's reserved
    // `aws:` keys, which it would warn about on every synthesis.
    expect(Object.keys(context).filter((key) => key.startsWith('aws:'))).toEqual([]);
    const ours = Object.values(template.findResources('AWS::Lambda::Function')).filter(
      (f) => f.Properties.Environment?.Variables?.STAGE === 'cloud',
    );
    const ids = ours.map((f) => String(f.Metadata?.['aws:cdk:path']).replace(/^Test\/([^/]+)\/Resource$/, '$1'));
    // The list `npm run invoke` and the sample events follow is exactly the stack's functions.
    expect(ids.sort()).toEqual(
      stackFunctions()
        .map((f) => f.id)
        .sort(),
    );
    for (const f of ours) {
      const path = f.Metadata['aws:cdk:path'];
      expect(f.Metadata, path).toMatchObject({
        'aws:asset:path': expect.any(String),
        'aws:asset:property': 'Code',
        'aws:asset:is-bundled': true,
      });
      expect(f.Properties.Handler, path).toBe('index.handler');
      // SAM's --env-vars only overrides variables the template declares: empty here (the service's own endpoint).
      expect(f.Properties.Environment.Variables.DYNAMODB_ENDPOINT, path).toBe('');
    }
    const events = readdirSync(join(ROOT, 'events'))
      .filter((file) => file.endsWith('.json'))
      .sort();
    expect(events).toEqual(
      stackFunctions()
        .map((f) => `${f.name}.json`)
        .sort(),
    );
    // Every variable of the env-vars file the README gives SAM is declared by some function (SAM drops the others); the endpoint and table by all.
    const samEnv = JSON.parse(readFileSync(join(ROOT, 'infra/local/sam-env.json'), 'utf8')).Parameters as Record<
      string,
      string
    >;
    for (const name of Object.keys(samEnv))
      expect(
        ours.some((f) => name in f.Properties.Environment.Variables),
        name,
      ).toBe(true);
    for (const f of ours)
      for (const name of ['DYNAMODB_ENDPOINT', 'TABLE_NAME'])
        expect(Object.keys(f.Properties.Environment.Variables), f.Metadata['aws:cdk:path']).toContain(name);
  });

  it('passes the AwsSolutions checks (every remaining finding acknowledged with a reason)', () => {
    const report = new AwsSolutionsChecks().validateScope(stack);
    const findings = report.violations.map(
      (v) => `${v.ruleName} (${v.severity}): ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
    );
    expect(findings).toEqual([]);
    expect(report.success).toBe(true);
  });
});

/** Logical ids of the seeding function and its role. */
function seedIds(s: CatalogStack) {
  return {
    fn: s.getLogicalId(s.seedFunction.node.defaultChild as CfnFunction),
    role: s.getLogicalId(s.seedFunction.role!.node.defaultChild as CfnFunction),
  };
}

/** The statements of the policies attached to one role. */
function seederStatements(t: Template, roleId: string): unknown[] {
  return Object.values(t.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: roleId }] } })).flatMap(
    (p) => p.Properties.PolicyDocument.Statement,
  );
}
