import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { ACCOUNT, REGION, type LocalEndpoints, type Resolver } from './intrinsics.ts';
import { resourcesOf, referencedId, type CloudAssembly } from './template.ts';

/** A function of the template, as its sandboxes run it. */
export interface LambdaFunction {
  logicalId: string;
  name: string;
  arn: string;
  /** The asset folder (`cdk.out/asset.<hash>`) and the template's Handler in it. */
  taskRoot: string;
  handler: string;
  timeoutSeconds: number;
  memoryMb: number;
  /** At most this many sandboxes at once (ReservedConcurrentExecutions, else a local cap). */
  concurrency: number;
  /** The execution role's logical id: its policies decide every call the function makes. */
  roleId: string;
  /** The function's own credentials: the stand-ins tell callers apart by their access key id. */
  accessKeyId: string;
  environment: Record<string, string>;
}

/**
 * What a tester may pass through to every function from the environment of `npm run start:deployed`,
 * besides what the template sets: the variables `npm start` documents for loosening limits and reaching
 * local stubs, fault injection (`FAULTS`, `FAULTS_SEED`: shared/faults.ts reads them when a bundle
 * loads), and how long an outbox item waits before the resend sweep hands it over again (a suite need not
 * wait 15 minutes). Nothing else of this process's environment reaches a function.
 */
export const TESTER_OVERRIDES = [
  'WEBHOOK_ALLOWED_ADDRESSES',
  'LOGIN_RATE_LIMIT_PER_MINUTE',
  'PASSWORD_RESET_RATE_LIMIT_PER_MINUTE',
  'PASSWORD_RESET_MIN_DURATION_MS',
  'INVITATION_RATE_LIMIT_PER_INVITER_PER_HOUR',
  'INVITATION_RATE_LIMIT_PER_PROJECT_PER_HOUR',
  'INVITATION_RATE_LIMIT_PER_INVITATION_PER_MINUTE',
  'INVITATION_RATE_LIMIT_PER_INVITATION_PER_HOUR',
  'ENTERPRISE_REQUEST_RATE_LIMIT_PER_HOUR',
  'PAYMENT_WEBHOOK_RATE_LIMIT_PER_MINUTE',
  'HETZNER_API_BASE_URL',
  'DIGITALOCEAN_API_BASE_URL',
  'STRIPE_API_BASE',
  'LOG_LEVEL',
  'POWERTOOLS_METRICS_DISABLED',
  'FAULTS',
  'FAULTS_SEED',
  'OUTBOX_RESEND_AFTER_SECONDS',
  'SSO_ALLOWED_ADDRESSES',
  'SSO_DNS_SERVERS',
] as const;

/** Local sandboxes per function when the template reserves no concurrency. */
const DEFAULT_CONCURRENCY = 4;

/** The SDK v3 endpoint variables that point each service's client at its stand-in (the only change to a function's AWS calls). */
export function endpointVariables(endpoints: LocalEndpoints): Record<string, string> {
  return Object.fromEntries(
    ['DYNAMODB', 'S3', 'SQS', 'KMS', 'SECRETS_MANAGER', 'SES', 'STS', 'EC2'].map((s) => [
      `AWS_ENDPOINT_URL_${s}`,
      endpoints.aws,
    ]),
  );
}

const accessKeyOf = (logicalId: string) =>
  `ASIA${createHash('sha256').update(logicalId).digest('hex').slice(0, 16).toUpperCase()}`;

/** Every Node.js function of the template, with its environment as the Lambda service would give it. */
export function lambdaFunctions(
  assembly: CloudAssembly,
  resolver: Resolver,
  endpoints: LocalEndpoints,
  env: NodeJS.ProcessEnv = process.env,
): LambdaFunction[] {
  const overrides = Object.fromEntries(TESTER_OVERRIDES.filter((k) => env[k] !== undefined).map((k) => [k, env[k]!]));
  return resourcesOf(assembly, 'AWS::Lambda::Function')
    .filter(([, r]) => String(r.Properties?.Runtime).startsWith('nodejs'))
    .map(([logicalId, r]) => {
      const p = r.Properties!;
      const assetDir = r.Metadata?.['aws:asset:path'];
      if (typeof assetDir !== 'string') throw new Error(`${logicalId} names no asset folder (aws:asset:path)`);
      const name = resolver.ref(logicalId);
      const memoryMb = Number(p.MemorySize ?? 128);
      const accessKeyId = accessKeyOf(logicalId);
      const logGroup = p.LoggingConfig?.LogGroup
        ? String(resolver.resolve(p.LoggingConfig.LogGroup))
        : `/aws/lambda/${name}`;
      const runtime: Record<string, string> = {
        _HANDLER: p.Handler,
        AWS_REGION: REGION,
        AWS_DEFAULT_REGION: REGION,
        AWS_EXECUTION_ENV: `AWS_Lambda_${p.Runtime}`,
        AWS_LAMBDA_FUNCTION_NAME: name,
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(memoryMb),
        AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
        AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
        AWS_LAMBDA_LOG_GROUP_NAME: logGroup,
        AWS_LAMBDA_LOG_STREAM_NAME: `local/[$LATEST]${logicalId}`,
        AWS_ACCESS_KEY_ID: accessKeyId,
        AWS_SECRET_ACCESS_KEY: `local-secret-${logicalId}`,
        AWS_SESSION_TOKEN: `local-session-${logicalId}`,
        AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
        AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:2000',
        LAMBDA_TASK_ROOT: join(assembly.dir, assetDir),
        TZ: ':UTC',
        LANG: 'en_US.UTF-8',
        PATH: env.PATH ?? '/usr/bin:/bin',
      };
      const variables = resolver.resolve(p.Environment?.Variables ?? {}) as Record<string, string>;
      return {
        logicalId,
        name,
        arn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name}`,
        taskRoot: join(assembly.dir, assetDir),
        handler: p.Handler,
        timeoutSeconds: Number(p.Timeout ?? 3),
        memoryMb,
        concurrency: Number(p.ReservedConcurrentExecutions ?? DEFAULT_CONCURRENCY),
        roleId: referencedId(p.Role) ?? '',
        accessKeyId,
        environment: { ...variables, ...runtime, ...endpointVariables(endpoints), ...overrides },
      };
    });
}
