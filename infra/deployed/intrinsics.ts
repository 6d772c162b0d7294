import { createHash } from 'node:crypto';
import type { CloudAssembly } from './template.ts';

/** The account and region every stand-in answers for. */
export const ACCOUNT = '000000000000';
export const REGION = 'us-east-1';
/** The host the template's CloudFront domain resolves to before it is turned into the local site's address. */
const SITE_HOST = 'site.deployed.invalid';
/** Buckets' regional hosts (`<bucket>.s3.deployed.invalid`), turned into the AWS endpoint's address (the dashboard's CSP names it). */
const S3_HOST = 's3.deployed.invalid';

/** Where the stand-ins listen: the site (CloudFront) and the AWS endpoint (every service's stand-in). */
export interface LocalEndpoints {
  /** `http://localhost:<PORT>` */
  site: string;
  /** `http://127.0.0.1:<port>`: SQS, KMS, Secrets Manager, SES, the management API and the DynamoDB and S3 proxies. */
  aws: string;
}

const hex = (s: string, n: number) => createHash('sha256').update(s).digest('hex').slice(0, n);
/** A KMS key id (a UUID's shape), stable per logical id. */
const keyId = (id: string) => {
  const h = hex(id, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};
/** An API Gateway id (10 lower-case characters), stable per logical id. */
export const apiId = (id: string) => hex(id, 10);
/** A table's name: its logical id, after the run's prefix (runs sharing one DynamoDB Local keep their own tables). */
export const tableName = (id: string, prefix = '') => `${prefix}${id}`;

/**
 * The physical names the local stand-ins give the template's resources, and what Refs, GetAtts,
 * Joins, Subs and `{{resolve:secretsmanager:…}}` references resolve to: names and ARNs in account
 * 000000000000, queue URLs and API endpoints on the local AWS endpoint, the distribution's address
 * the local site's.
 */
export function createResolver(
  assembly: CloudAssembly,
  endpoints: LocalEndpoints,
  runtime: { attributes?: Record<string, string>; secretValue?: (arn: string) => string; tablePrefix?: string } = {},
) {
  const typeOf = (id: string) => {
    const r = assembly.resources[id];
    if (!r) throw new Error(`the template has no resource ${id}`);
    return r.Type;
  };
  const functionName = (id: string) => `${assembly.stackName}-${id}`;

  function ref(id: string): string {
    switch (id) {
      case 'AWS::Region':
        return REGION;
      case 'AWS::AccountId':
        return ACCOUNT;
      case 'AWS::Partition':
        return 'aws';
      case 'AWS::URLSuffix':
        return 'amazonaws.com';
      case 'AWS::StackName':
        return assembly.stackName;
      case 'AWS::NoValue':
        return '';
    }
    switch (typeOf(id)) {
      case 'AWS::S3::Bucket':
        return id.toLowerCase();
      case 'AWS::SQS::Queue':
        return `${endpoints.aws}/${ACCOUNT}/${id}`;
      case 'AWS::SecretsManager::Secret':
        return `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${id}-${hex(id, 6)}`;
      case 'AWS::KMS::Key':
        return keyId(id);
      case 'AWS::ApiGatewayV2::Api':
        return apiId(id);
      case 'AWS::Lambda::Function':
        return functionName(id);
      case 'AWS::DynamoDB::Table':
        return tableName(id, runtime.tablePrefix);
      default:
        return id; // roles, policies: the logical id is the name
    }
  }

  function getAtt(id: string, attr: string): string {
    const known = runtime.attributes?.[`${id}.${attr}`];
    if (known !== undefined) return known;
    const type = typeOf(id);
    if (attr === 'Arn') {
      switch (type) {
        case 'AWS::DynamoDB::Table':
          return `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${ref(id)}`;
        case 'AWS::SQS::Queue':
          return `arn:aws:sqs:${REGION}:${ACCOUNT}:${id}`;
        case 'AWS::S3::Bucket':
          return `arn:aws:s3:::${ref(id)}`;
        case 'AWS::KMS::Key':
          return `arn:aws:kms:${REGION}:${ACCOUNT}:key/${ref(id)}`;
        case 'AWS::Lambda::Function':
          return `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${ref(id)}`;
        case 'AWS::IAM::Role':
          return `arn:aws:iam::${ACCOUNT}:role/${ref(id)}`;
        case 'AWS::Logs::LogGroup':
          return `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${id}:*`;
      }
    }
    if (type === 'AWS::SQS::Queue' && attr === 'QueueName') return id;
    if (type === 'AWS::CloudFront::Distribution' && attr === 'DomainName') return SITE_HOST;
    if (type === 'AWS::S3::Bucket' && attr === 'RegionalDomainName') return `${ref(id)}.${S3_HOST}`;
    if (type === 'AWS::ApiGatewayV2::Api' && attr === 'ApiEndpoint')
      return `https://${apiId(id)}.execute-api.${REGION}.amazonaws.com`;
    return `${id}.${attr}`; // nothing a function reads (alarms, dashboards)
  }

  /** A resolved string's cloud addresses, made local: the site and the WebSocket management endpoints. */
  function localize(s: string): string {
    return s
      .replaceAll(`https://${SITE_HOST}`, endpoints.site)
      .replaceAll(`wss://${SITE_HOST}`, endpoints.site.replace(/^http/, 'ws'))
      .replace(new RegExp(`https://[\\w.-]+\\.${S3_HOST.replaceAll('.', '\\.')}`, 'g'), endpoints.aws)
      .replace(/https:\/\/(\w+)\.execute-api\.[\w-]+\.amazonaws\.com/g, `${endpoints.aws}/execute-api/$1`)
      .replace(
        /\{\{resolve:secretsmanager:([^:]+:[^:]+:[^:]+:[^:]+:[^:]+:[^:]+:[^:]+):SecretString:::\}\}/g,
        (_, arn: string) => {
          if (!runtime.secretValue) throw new Error(`no secret store to resolve ${arn}`);
          return runtime.secretValue(arn);
        },
      );
  }

  function resolve(value: unknown): unknown {
    if (typeof value === 'string') return localize(value);
    if (Array.isArray(value)) return value.map(resolve);
    if (!value || typeof value !== 'object') return value;
    const v = value as Record<string, unknown>;
    if ('Ref' in v) return localize(ref(v.Ref as string));
    if ('Fn::GetAtt' in v) {
      const [id, attr] = v['Fn::GetAtt'] as [string, string];
      return localize(getAtt(id, attr));
    }
    if ('Fn::Join' in v) {
      const [sep, parts] = v['Fn::Join'] as [string, unknown[]];
      return localize((parts.map(resolve) as string[]).join(sep));
    }
    if ('Fn::Sub' in v) {
      const [text, vars] = (Array.isArray(v['Fn::Sub']) ? v['Fn::Sub'] : [v['Fn::Sub'], {}]) as [
        string,
        Record<string, unknown>,
      ];
      return localize(
        text.replace(/\$\{([\w:]+)(?:\.(\w+))?\}/g, (_, name: string, attr?: string) =>
          name in vars ? String(resolve(vars[name])) : attr ? getAtt(name, attr) : ref(name),
        ),
      );
    }
    if ('Fn::Select' in v) {
      const [index, list] = v['Fn::Select'] as [number, unknown];
      return (resolve(list) as unknown[])[Number(index)];
    }
    if ('Fn::Split' in v) {
      const [sep, text] = v['Fn::Split'] as [string, unknown];
      return String(resolve(text)).split(sep);
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)]));
  }

  return { resolve, ref, getAtt, functionName };
}
export type Resolver = ReturnType<typeof createResolver>;
