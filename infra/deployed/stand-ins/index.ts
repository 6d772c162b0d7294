import { join } from 'node:path';
import type { FaultInjector } from '../../../shared/faults.ts';
import type { ServiceHandler } from './aws-request.ts';
import { createIam } from '../iam.ts';
import type { Resolver } from '../intrinsics.ts';
import type { LambdaFunction } from '../lambda-functions.ts';
import { resourcesOf, type CloudAssembly } from '../template.ts';
import { createCustomerAws } from './customer-aws.ts';
import { createDynamoProxy } from './dynamodb-proxy.ts';
import { createKms } from './kms.ts';
import { createS3Proxy } from './s3-proxy.ts';
import { createSecretsManager, generatedSecret } from './secrets-manager.ts';
import { createSes } from './ses.ts';
import { createSqs } from './sqs.ts';

export interface StandInOptions {
  /** DynamoDB Local and s3rver, put behind IAM (left out when not given). */
  dynamoEndpoint?: string;
  s3Endpoint?: string;
  /** Where SES's messages are captured (`<LOCAL_DATA_DIR>`/outbox). */
  dataDir: string;
  /** Secrets besides the template's, by ARN. */
  extraSecrets?: Record<string, string>;
  enforceIam?: boolean;
  log?: (line: string) => void;
  /** Every queue's visibility timeout times this (a tester's `DEPLOYED_VISIBILITY_SCALE`; the template's 360 s and 90 min otherwise). */
  visibilityScale?: number;
  /** The SQS stand-in's own injected faults (`FAULTS`' queue kinds). */
  faults?: FaultInjector;
}

/** Every AWS stand-in for a template, behind one IAM: the handlers by SigV4 service name, and the SQS state the event source mappings use. */
export function createStandIns(
  assembly: CloudAssembly,
  resolver: Resolver,
  functions: LambdaFunction[],
  secrets: Map<string, string>,
  opts: StandInOptions,
) {
  const iam = createIam(assembly, resolver, functions, { enforce: opts.enforceIam, log: opts.log });
  const sqs = createSqs(
    resourcesOf(assembly, 'AWS::SQS::Queue').map(([id, r]) => {
      const redrive = r.Properties?.RedrivePolicy
        ? (resolver.resolve(r.Properties.RedrivePolicy) as { deadLetterTargetArn: string; maxReceiveCount: number })
        : undefined;
      return {
        arn: resolver.getAtt(id, 'Arn'),
        url: resolver.ref(id),
        visibilityTimeoutSeconds: Number(r.Properties?.VisibilityTimeout ?? 30) * (opts.visibilityScale ?? 1),
        redrive: redrive && { ...redrive, maxReceiveCount: Number(redrive.maxReceiveCount) },
      };
    }),
    iam,
    { faults: opts.faults },
  );
  const ses = createSes(join(opts.dataDir, 'outbox'), iam);
  const customerAws = createCustomerAws(iam);
  const services: Record<string, ServiceHandler> = {
    sqs: sqs.handle,
    kms: createKms(
      resourcesOf(assembly, 'AWS::KMS::Key').map(([id]) => resolver.ref(id)),
      iam,
    ),
    secretsmanager: createSecretsManager(secrets, iam),
    ses,
    email: ses,
    sts: customerAws.sts,
    ec2: customerAws.ec2,
    ...(opts.dynamoEndpoint ? { dynamodb: createDynamoProxy(opts.dynamoEndpoint, iam) } : {}),
    ...(opts.s3Endpoint ? { s3: createS3Proxy(opts.s3Endpoint, iam) } : {}),
  };
  return { iam, sqs, customerAws, services };
}

/** The template's secrets, each with its SecretString or a value made as GenerateSecretString says, by ARN. */
export function templateSecrets(
  assembly: CloudAssembly,
  resolver: Resolver,
  extra: Record<string, string> = {},
): Map<string, string> {
  const secrets = new Map(Object.entries(extra));
  for (const [id, r] of resourcesOf(assembly, 'AWS::SecretsManager::Secret')) {
    const p = r.Properties ?? {};
    secrets.set(resolver.ref(id), p.SecretString ?? generatedSecret(p.GenerateSecretString ?? {}));
  }
  return secrets;
}
