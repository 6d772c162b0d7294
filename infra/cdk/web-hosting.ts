import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { HttpApi, WebSocketApi, WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
  type BehaviorOptions,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, type IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { allRoutes } from '../../functions/route-table.ts';
import { WEB_CACHE, WEB_FILE_PATH, webCsp } from '../web-policy.ts';
import { ORIGIN_VERIFY_HEADER } from '../../shared/http/client-address.ts';

/**
 * The API's paths as CloudFront path patterns (`*` is any run of characters, `/` included): each is a
 * cache behaviour forwarded to the HTTP API. Everything else is the dashboard's (its files and its
 * addresses, web/src/links.ts). Kept short (CloudFront allows 25 behaviours per distribution by
 * default): one pattern per first path segment, merged where segments share a stem; `billing` names
 * the webhook only, since the app's own `/billing` pages are where the payment provider sends people
 * back. `WebHosting` refuses to synthesize when a route of the route table matches none of them.
 */
export const API_PATH_PATTERNS = [
  '/auth/*',
  '/admin/*',
  '/users*',
  '/plans*',
  '/me/*',
  '/subscriptions/*',
  '/invoice/*',
  '/billing/*/webhook',
  '/enterprise/*',
  '/project*',
  '/environments*',
  '/groups*',
  '/subgroups*',
  '/se*', // /services, /service-floors, /search
  '/networks*',
  '/attachments/*',
  '/invites*',
  '/impex/*',
  '/integrations/*',
  '/topology*',
  '/live/*',
  '/openapi.json',
  '/docs*',
] as const;

/** The progress WebSocket: its stage's path, forwarded to the WebSocket API (the stage is named after it). */
export const PROGRESS_PATH = '/progress';

/** The app's files (hashed, immutable): their own behaviour, for their own Cache-Control. */
export const ASSETS_PATH_PATTERN = '/assets/*';

/** True when CloudFront would route `path` to a behaviour with `pattern` (case-sensitive; `*` any characters, `?` one). */
export function pathPatternMatches(pattern: string, path: string): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`).test(path);
}

/** A concrete path for a route's template (`/services/{service_id}` → `/services/x`). */
export const samplePath = (template: string) => template.replace(/\{[^}]+\}/g, 'x');

/**
 * CloudFront Function on the app's behaviour (viewer request): the app's addresses (`/sign-in`,
 * `/p/<project>/…`, `/invitations/accept?token=…`) all load index.html, its files are read as they
 * are; the same rule as the local server (`WEB_FILE_PATH`). A rewrite rather than the distribution's
 * error responses, which would also replace the API's own 403 and 404 answers with the page.
 */
export const SPA_REWRITE_CODE = `function handler(event) {
  var request = event.request;
  if (!${WEB_FILE_PATH}.test(request.uri)) request.uri = '/index.html';
  return request;
}`;

export interface WebHostingProps {
  /** The built dashboard (`npm run build:web`; `cdk synth` builds it first: infra/cdk/app.ts). */
  webDist: string;
  api: HttpApi;
  progressApi: WebSocketApi;
  progressStage: WebSocketStage;
  /** Receives the bucket's server access logs (`web/`) and the distribution's (`cloudfront/`). */
  accessLogs: IBucket;
  /** A custom domain for the site, with its ACM certificate's ARN (us-east-1); else the distribution's own domain. */
  domainName?: string;
  certificateArn?: string;
  /** Sent to the HTTP API as `x-origin-verify`: the API then believes CloudFront's viewer address (shared/http/client-address.ts). */
  originVerify: string;
  /** The documents bucket: the page PUTs an import's document to a presigned URL there (the CSP's one other host). */
  documents: IBucket;
}

const ack = (scope: Construct, id: string, reason: string) =>
  Validations.of(scope).acknowledge({ id: `AwsSolutions-${id}`, reason });

/**
 * The dashboard in the cloud, on the same site as the API (docs/decisions/
 * 0089-dashboard-in-the-cloud-one-cloudfront-distribution-on-the.md): one CloudFront distribution whose default behaviour serves the built app from a private
 * bucket (Origin Access Control) and whose API behaviours forward, uncached, to API Gateway. Browser
 * and API then share one origin: the refresh cookie (host-only, `Path=/`, `SameSite=Lax`) is sent
 * with the app's calls, and their `Origin` is `url`, which the stack makes APP_BASE_URL.
 */
export class WebHosting extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  readonly deployment: BucketDeployment;
  /** `https://<site domain>`: the public address of the app and the API behind it. */
  readonly url: string;
  /** `wss://<site domain>/progress`: the progress WebSocket through the same site (the CSP's `connect-src 'self'`). */
  readonly progressUrl: string;

  constructor(scope: Construct, id: string, props: WebHostingProps) {
    super(scope, id);
    if (!existsSync(join(props.webDist, 'index.html'))) {
      throw new Error(
        `The dashboard is not built (${props.webDist}/index.html is missing): run \`npm run build:web\` first`,
      );
    }
    if (!!props.domainName !== !!props.certificateArn)
      throw new Error('siteDomainName and siteCertificateArn go together');
    const uncovered = allRoutes()
      .map(({ route }) => route.path)
      .filter((p) => !API_PATH_PATTERNS.some((pattern) => pathPatternMatches(pattern, samplePath(p))));
    if (uncovered.length)
      throw new Error(
        `API paths no CloudFront behaviour forwards to the API (add a pattern to API_PATH_PATTERNS): ${[...new Set(uncovered)].join(', ')}`,
      );

    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED, // OAC reads SSE-S3 objects without a key policy
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: props.accessLogs,
      serverAccessLogsPrefix: 'web/',
    });
    const appOrigin = S3BucketOrigin.withOriginAccessControl(this.bucket);

    const { region, urlSuffix } = Stack.of(this);
    const apiGatewayOrigin = (apiId: string, customHeaders?: Record<string, string>) =>
      new HttpOrigin(`${apiId}.execute-api.${region}.${urlSuffix}`, {
        customHeaders,
        protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
        originSslProtocols: [OriginSslPolicy.TLS_V1_2],
        readTimeout: Duration.seconds(30), // the HTTP API gives up after 30 s anyway
      });
    // Uncached, every method, every header but Host (API Gateway routes by its own host name), every cookie and query string.
    const forwarded = (origin: HttpOrigin): BehaviorOptions => ({
      origin,
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY, // no redirect: a redirected POST would lose its body
      allowedMethods: AllowedMethods.ALLOW_ALL,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      compress: false,
    });
    const api = forwarded(apiGatewayOrigin(props.api.apiId, { [ORIGIN_VERIFY_HEADER]: props.originVerify }));

    // The page's headers, as the local server sends them (shared/http/security.ts, infra/local/web.ts).
    const headers = (id: string, cacheControl: string) =>
      new ResponseHeadersPolicy(this, id, {
        comment: `Dashboard: CSP, security headers, Cache-Control ${cacheControl}`,
        securityHeadersBehavior: {
          contentSecurityPolicy: {
            contentSecurityPolicy: webCsp(`https://${props.documents.bucketRegionalDomainName}`),
            override: true,
          },
          contentTypeOptions: { override: true },
          referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
          strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
        },
        customHeadersBehavior: { customHeaders: [{ header: 'Cache-Control', value: cacheControl, override: true }] },
      });
    const app = (cacheControl: string): Omit<BehaviorOptions, 'origin'> => ({
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
      cachePolicy: CachePolicy.CACHING_OPTIMIZED,
      compress: true,
      responseHeadersPolicy: headers(
        cacheControl === WEB_CACHE.immutable ? 'AssetHeaders' : 'PageHeaders',
        cacheControl,
      ),
    });
    const spaRewrite = new CloudFrontFunction(this, 'SpaRewrite', {
      comment: "The dashboard's addresses load index.html; its files are read as they are",
      code: FunctionCode.fromInline(SPA_REWRITE_CODE),
      runtime: FunctionRuntime.JS_2_0,
    });

    const certificate = props.certificateArn
      ? Certificate.fromCertificateArn(this, 'Certificate', props.certificateArn)
      : undefined;
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Infrastructure Catalog: the dashboard and the API on one site',
      defaultBehavior: {
        origin: appOrigin,
        ...app(WEB_CACHE.revalidate),
        functionAssociations: [{ function: spaRewrite, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        [ASSETS_PATH_PATTERN]: { origin: appOrigin, ...app(WEB_CACHE.immutable) },
        ...Object.fromEntries(API_PATH_PATTERNS.map((pattern) => [pattern, api])),
        [PROGRESS_PATH]: forwarded(apiGatewayOrigin(props.progressApi.apiId)),
      },
      defaultRootObject: 'index.html',
      httpVersion: HttpVersion.HTTP2_AND_3,
      enableLogging: true,
      logBucket: props.accessLogs,
      logFilePrefix: 'cloudfront/',
      ...(certificate
        ? {
            domainNames: [props.domainName!],
            certificate,
            minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
          }
        : {}),
    });
    if (!certificate) {
      ack(
        this.distribution,
        'CFR4',
        "Without a custom domain (siteDomainName/siteCertificateArn) the distribution uses CloudFront's own certificate, whose minimum protocol cannot be set; with one it is TLSv1.2_2021.",
      );
    }
    ack(
      this.distribution,
      'CFR1',
      'The catalog serves its tenants wherever they are; no geographic restriction applies.',
    );
    ack(
      this.distribution,
      'CFR2',
      'Same stance as the API: abuse is limited in the API (per-address and per-account rate limits, origin guard); a WAF web ACL (us-east-1) can be attached per deployment.',
    );

    this.deployment = new BucketDeployment(this, 'Deployment', {
      sources: [Source.asset(props.webDist, { exclude: ['.source-hash'] })],
      destinationBucket: this.bucket,
      prune: true, // files of earlier builds go (hashed names: each build has new ones)
      distribution: this.distribution,
      distributionPaths: ['/*'],
      memoryLimit: 512,
    });
    // CDK's own provider of the deployment (one per stack and memory size): its runtime, role and grants are CDK's.
    const provider = Stack.of(this).node.children.find((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'));
    if (provider) {
      ack(provider, 'L1', "CDK's BucketDeployment provider: CDK chooses and updates its runtime.");
      ack(
        provider,
        'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        "AWS's minimal managed policy for writing the deployment provider's own CloudWatch logs.",
      );
      const bucketId = Stack.of(this).getLogicalId(this.bucket.node.defaultChild as never);
      for (const [finding, reason] of [
        [
          'Action::s3:GetBucket*',
          "CDK's deployment grant: read the CDK asset bucket's object (the built app) and write this site bucket.",
        ],
        ['Action::s3:GetObject*', "CDK's deployment grant: read the built app's asset zip."],
        ['Action::s3:List*', "CDK's deployment grant: `aws s3 sync --delete` lists the site bucket to prune it."],
        ['Action::s3:Abort*', "CDK's deployment grant: multipart uploads into the site bucket."],
        ['Action::s3:DeleteObject*', "CDK's deployment grant: pruning files of earlier builds."],
        [
          'Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*',
          "CDK's bootstrap asset bucket, where the built app's zip is uploaded.",
        ],
        [`Resource::<${bucketId}.Arn>/*`, 'Every file of the app, in this site bucket only.'],
        ['Resource::*', "cloudfront:CreateInvalidation/GetInvalidation after a deployment (CDK's grant)."],
      ])
        ack(provider, `IAM5[${finding}]`, reason);
    }

    const domain = props.domainName ?? this.distribution.distributionDomainName;
    this.url = `https://${domain}`;
    this.progressUrl = `wss://${domain}${PROGRESS_PATH}`;
    if (props.progressStage.stageName !== PROGRESS_PATH.slice(1))
      throw new Error(
        `The progress stage must be named ${PROGRESS_PATH.slice(1)}: CloudFront forwards ${PROGRESS_PATH} as it is`,
      );
  }
}
