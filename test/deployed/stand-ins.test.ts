import { readdir, readFile } from 'node:fs/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SendEmailCommand, SESClient } from '@aws-sdk/client-ses';
import { AssumeRoleCommand, GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAwsEndpoint } from '../../infra/deployed/aws-endpoint.ts';
import type { ServiceHandler } from '../../infra/deployed/stand-ins/aws-request.ts';
import { OPERATOR_ACCESS_KEY } from '../../infra/deployed/iam.ts';
import { createResolver } from '../../infra/deployed/intrinsics.ts';
import { lambdaFunctions } from '../../infra/deployed/lambda-functions.ts';
import { createStandIns, templateSecrets } from '../../infra/deployed/stand-ins/index.ts';
import { faultInjector } from '#shared/faults';
import { eventKind } from '../../infra/deployed/sandboxes.ts';
import type { CloudAssembly } from '../../infra/deployed/template.ts';

/**
 * The AWS stand-ins of start:deployed, spoken to by the real SDK v3 clients with only an endpoint
 * override, and each call authorized against a role from a (small) template.
 */
const arn = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
// biome-ignore-start lint/suspicious/noTemplateCurlyInString: the template's Fn::Sub strings, substituted by the template reader under test
const assembly: CloudAssembly = {
  dir: '/nowhere',
  stackName: 'Test',
  resources: {
    Fn: {
      Type: 'AWS::Lambda::Function',
      Properties: { Runtime: 'nodejs24.x', Handler: 'index.handler', Role: arn('FnRole') },
      Metadata: { 'aws:asset:path': 'asset.fn' },
    },
    FnRole: { Type: 'AWS::IAM::Role', Properties: {} },
    FnPolicy: {
      Type: 'AWS::IAM::Policy',
      Properties: {
        Roles: [{ Ref: 'FnRole' }],
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Action: ['sqs:SendMessage', 'sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility'],
              Resource: arn('Queue'),
            },
            { Effect: 'Allow', Action: ['kms:Encrypt', 'kms:Decrypt'], Resource: arn('Key') },
            { Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: { Ref: 'Secret' } },
            {
              Effect: 'Allow',
              Action: 'sts:AssumeRole',
              Resource: 'arn:aws:iam::*:role/*',
              Condition: { StringLike: { 'sts:ExternalId': 'icat-*' } },
            },
            {
              Effect: 'Allow',
              Action: 'ses:SendEmail',
              Resource: { 'Fn::Sub': 'arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}:identity/*' },
            },
          ],
        },
      },
    },
    Queue: {
      Type: 'AWS::SQS::Queue',
      Properties: { VisibilityTimeout: 30, RedrivePolicy: { deadLetterTargetArn: arn('Dlq'), maxReceiveCount: 2 } },
    },
    Dlq: { Type: 'AWS::SQS::Queue', Properties: {} },
    Key: {
      Type: 'AWS::KMS::Key',
      Properties: {
        KeyPolicy: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Principal: { AWS: { 'Fn::Sub': 'arn:${AWS::Partition}:iam::${AWS::AccountId}:root' } },
              Action: 'kms:*',
              Resource: '*',
            },
          ],
        },
      },
    },
    Secret: { Type: 'AWS::SecretsManager::Secret', Properties: { SecretString: 'the signing key' } },
    OtherSecret: {
      Type: 'AWS::SecretsManager::Secret',
      Properties: { GenerateSecretString: { PasswordLength: 20, ExcludePunctuation: true } },
    },
  },
};
// biome-ignore-end lint/suspicious/noTemplateCurlyInString: the template ends here

const dataDir = mkdtempSync(join(tmpdir(), 'infra-catalog-stand-ins-'));
const services: Record<string, ServiceHandler> = {};
let endpoint: Awaited<ReturnType<typeof startAwsEndpoint>>;
let standIns: ReturnType<typeof createStandIns>;
let resolver: ReturnType<typeof createResolver>;
let as: { region: string; endpoint: string; credentials: { accessKeyId: string; secretAccessKey: string } };
let operator: typeof as;

beforeAll(async () => {
  endpoint = await startAwsEndpoint(services, () => {});
  resolver = createResolver(assembly, { site: 'http://localhost:1', aws: endpoint.url });
  const functions = lambdaFunctions(assembly, resolver, { site: 'http://localhost:1', aws: endpoint.url }, {});
  standIns = createStandIns(assembly, resolver, functions, templateSecrets(assembly, resolver), { dataDir });
  Object.assign(services, standIns.services);
  as = {
    region: 'us-east-1',
    endpoint: endpoint.url,
    credentials: { accessKeyId: functions[0].accessKeyId, secretAccessKey: 'x' },
  };
  operator = { ...as, credentials: { accessKeyId: OPERATOR_ACCESS_KEY, secretAccessKey: 'x' } };
});
afterAll(() => {
  endpoint?.server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('SQS (JSON protocol)', () => {
  it('sends and receives (the SDK checks the MD5s), hides a received message for its visibility timeout, and deletes it', async () => {
    const sqs = new SQSClient(as);
    const QueueUrl = resolver.ref('Queue');
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: '{"hello":"world"}' }));
    const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
    expect(Messages?.map((m) => [m.Body, m.Attributes?.ApproximateReceiveCount])).toEqual([['{"hello":"world"}', '1']]);
    expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl }))).Messages ?? []).toEqual([]);
    await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: Messages![0].ReceiptHandle }));
    expect(standIns.sqs.counts(resolver.getAtt('Queue', 'Arn'))).toEqual({ visible: 0, inFlight: 0 });
  });

  it('moves a message received maxReceiveCount times to its dead-letter queue', async () => {
    const sqs = new SQSClient(as);
    const QueueUrl = resolver.ref('Queue');
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'poison' }));
    for (const count of ['1', '2']) {
      const [m] = (await sqs.send(new ReceiveMessageCommand({ QueueUrl }))).Messages ?? [];
      expect(m.Attributes?.ApproximateReceiveCount).toBe(count);
      await sqs.send(
        new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0 }),
      ); // failed: back at once
    }
    expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl }))).Messages ?? []).toEqual([]);
    const dead = await new SQSClient(operator).send(new ReceiveMessageCommand({ QueueUrl: resolver.ref('Dlq') }));
    expect(dead.Messages?.map((m) => m.Body)).toEqual(['poison']);
  });

  it('refuses a queue the role has no grant on, as AWS does, each time it is asked (a verdict is evaluated once)', async () => {
    const before = standIns.iam.denials.length;
    for (const body of ['x', 'y']) {
      const err = await new SQSClient(as)
        .send(new SendMessageCommand({ QueueUrl: resolver.ref('Dlq'), MessageBody: body }))
        .catch((e: Error) => e);
      expect((err as Error).name).toBe('AccessDeniedException');
    }
    expect(standIns.iam.denials.slice(before)).toMatchObject([
      { action: 'sqs:SendMessage', resource: resolver.getAtt('Dlq', 'Arn') },
      { action: 'sqs:SendMessage', resource: resolver.getAtt('Dlq', 'Arn') },
    ]);
  });
});

describe("SQS, with a tester's overrides", () => {
  it('scales every visibility timeout (DEPLOYED_VISIBILITY_SCALE) and holds messages back when sqs.reorder strikes', async () => {
    const functions = lambdaFunctions(assembly, resolver, { site: 'http://localhost:1', aws: endpoint.url }, {});
    const scaled = createStandIns(assembly, resolver, functions, new Map(), {
      dataDir,
      visibilityScale: 0.01,
      faults: faultInjector('sqs.reorder:0.5', 2),
    });
    const arn = resolver.getAtt('Queue', 'Arn');
    for (const body of ['1', '2', '3', '4', '5', '6']) scaled.sqs.send(arn, body);
    const order: string[] = [];
    while (order.length < 6) order.push(...scaled.sqs.receive(arn, 1).map((m) => m.Body));
    expect([...order].sort()).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(order).not.toEqual(['1', '2', '3', '4', '5', '6']); // some were overtaken
    // 30 s × 0.01: the first message is back after 0.3 s.
    expect(scaled.sqs.counts(arn)).toEqual({ visible: 0, inFlight: 6 });
    await new Promise((r) => setTimeout(r, 350));
    expect(scaled.sqs.counts(arn)).toEqual({ visible: 6, inFlight: 0 });
  });
});

describe("a customer's AWS account (discovery's STS and EC2)", () => {
  it("assumes a role with its external id (the grant's condition checked by IAM, the trust by the role), then lists the region's instances as that role", async () => {
    const roleArn = 'arn:aws:iam::123456789012:role/infra-catalog';
    standIns.customerAws.addRole(roleArn, 'icat-abc', {
      'eu-west-1': [{ id: 'i-0abc', name: 'web-1', privateIp: '10.0.0.5', zone: 'eu-west-1a' }],
    });
    const sts = new STSClient(as);
    const { Credentials } = await sts.send(
      new AssumeRoleCommand({ RoleArn: roleArn, ExternalId: 'icat-abc', RoleSessionName: 's' }),
    );
    const customer = {
      region: 'eu-west-1',
      endpoint: endpoint.url,
      credentials: {
        accessKeyId: Credentials!.AccessKeyId!,
        secretAccessKey: Credentials!.SecretAccessKey!,
        sessionToken: Credentials!.SessionToken!,
      },
    };
    expect((await new STSClient(customer).send(new GetCallerIdentityCommand({}))).Account).toBe('123456789012');
    const listed = await new EC2Client(customer).send(new DescribeInstancesCommand({}));
    expect(
      listed.Reservations?.flatMap((r) => r.Instances ?? []).map((i) => [
        i.InstanceId,
        i.Tags?.[0]?.Value,
        i.PrivateIpAddress,
        i.State?.Name,
      ]),
    ).toEqual([['i-0abc', 'web-1', '10.0.0.5', 'running']]);
    expect(
      (await new EC2Client({ ...customer, region: 'us-east-1' }).send(new DescribeInstancesCommand({}))).Reservations,
    ).toEqual([]);

    const wrongTrust = await sts
      .send(new AssumeRoleCommand({ RoleArn: roleArn, ExternalId: 'icat-other', RoleSessionName: 's' }))
      .catch((e: Error) => e);
    expect((wrongTrust as Error).name).toBe('AccessDenied');
    const notGranted = await sts
      .send(new AssumeRoleCommand({ RoleArn: roleArn, ExternalId: 'abc', RoleSessionName: 's' }))
      .catch((e: Error) => e);
    expect((notGranted as Error).name).toBe('AccessDenied');
    expect(standIns.iam.denials.at(-1)).toMatchObject({ action: 'sts:AssumeRole', resource: roleArn });
  });
});

describe('the events that reach a function', () => {
  it('are named by their route, queue, table, WebSocket route or source', () => {
    expect(
      [
        { routeKey: 'GET /plans', requestContext: { routeKey: 'GET /plans' } },
        { Records: [{ eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:MailQueue' }] },
        {
          Records: [
            {
              eventSource: 'aws:dynamodb',
              eventSourceARN: 'arn:aws:dynamodb:us-east-1:000000000000:table/Table/stream/2026-11-27T11:04:05.319',
            },
          ],
        },
        { type: 'REQUEST', requestContext: { routeKey: '$connect' } },
        { requestContext: { routeKey: '$default' } },
        { source: 'aws.events' },
        {},
      ].map(eventKind),
    ).toEqual([
      'GET /plans',
      'aws:sqs MailQueue',
      'aws:dynamodb Table',
      'WebSocket authorizer',
      'WebSocket $default',
      'schedule',
      'direct invoke',
    ]);
  });
});

describe('IAM switched off', () => {
  it('lets through what it would refuse (the denial tests stand on the evaluator), still logging it', async () => {
    const functions = lambdaFunctions(assembly, resolver, { site: 'http://localhost:1', aws: endpoint.url }, {});
    const open = createStandIns(assembly, resolver, functions, new Map(), { dataDir, enforceIam: false });
    expect(await open.iam.allows(functions[0].accessKeyId, 'sqs:SendMessage', resolver.getAtt('Dlq', 'Arn'))).toBe(
      true,
    );
    expect(await standIns.iam.allows(functions[0].accessKeyId, 'sqs:SendMessage', resolver.getAtt('Dlq', 'Arn'))).toBe(
      false,
    );
    expect(open.iam.denials).toHaveLength(1);
  });
});

describe('KMS', () => {
  it('opens what it sealed only with the same encryption context', async () => {
    const kms = new KMSClient(as);
    const context = { purpose: 'totp', account: 'a1' };
    const sealed = await kms.send(
      new EncryptCommand({
        KeyId: resolver.ref('Key'),
        Plaintext: Buffer.from('JBSWY3DP'),
        EncryptionContext: context,
      }),
    );
    const opened = await kms.send(
      new DecryptCommand({ CiphertextBlob: sealed.CiphertextBlob, EncryptionContext: context }),
    );
    expect(Buffer.from(opened.Plaintext!).toString()).toBe('JBSWY3DP');
    const wrong = await kms
      .send(
        new DecryptCommand({ CiphertextBlob: sealed.CiphertextBlob, EncryptionContext: { ...context, account: 'a2' } }),
      )
      .catch((e: Error) => e);
    expect((wrong as Error).name).toBe('InvalidCiphertextException');
  });
});

describe('Secrets Manager', () => {
  it('answers a granted secret and refuses another', async () => {
    const sm = new SecretsManagerClient(as);
    expect((await sm.send(new GetSecretValueCommand({ SecretId: resolver.ref('Secret') }))).SecretString).toBe(
      'the signing key',
    );
    const err = await sm
      .send(new GetSecretValueCommand({ SecretId: resolver.ref('OtherSecret') }))
      .catch((e: Error) => e);
    expect((err as Error).name).toBe('AccessDeniedException');
    expect(
      (
        await new SecretsManagerClient(operator).send(
          new GetSecretValueCommand({ SecretId: resolver.ref('OtherSecret') }),
        )
      ).SecretString,
    ).toMatch(/^[A-Za-z0-9]{20}$/);
  });
});

describe('SES', () => {
  it('captures a sent message in the outbox folder, as the local mailer writes it', async () => {
    await new SESClient(as).send(
      new SendEmailCommand({
        Source: 'no-reply@example.com',
        Destination: { ToAddresses: ['ann@example.com'] },
        Message: { Subject: { Data: 'Hello' }, Body: { Text: { Data: 'Plain' }, Html: { Data: '<p>Html</p>' } } },
      }),
    );
    const [file] = await readdir(join(dataDir, 'outbox'));
    expect(JSON.parse(await readFile(join(dataDir, 'outbox', file), 'utf8'))).toEqual({
      to: 'ann@example.com',
      subject: 'Hello',
      text: 'Plain',
      html: '<p>Html</p>',
    });
  });
});
