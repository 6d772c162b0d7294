import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../../functions/route-table.ts';
import type { CatalogStack, CatalogStackProps } from '../../infra/cdk/stack.ts';
import {
  API_PATH_PATTERNS,
  ASSETS_PATH_PATTERN,
  pathPatternMatches,
  PROGRESS_PATH,
  samplePath,
} from '../../infra/cdk/web-hosting.ts';
import { WEB_DIST } from '../../infra/build/web-build.ts';
import { WEB_CACHE, webCsp } from '../../infra/web-policy.ts';
import { synth, synthOutdir, useStandardStack } from '../helpers/cdk-synth.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * The dashboard in the cloud: S3 behind CloudFront on the API's own site. web/dist is built
 * by the test run's global setup (test/helpers/global-setup.ts), as `cdk synth` builds it (infra/cdk/app.ts).
 * These cases run in test/infra/stack.test.ts, on its synthesis of the stack (one per process: most of the cost).
 */
/** CloudFront's managed policies, by id. */
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const CACHING_OPTIMIZED = '658327ea-f89d-4fab-a63d-7e88639e58f6';
const ALL_VIEWER_EXCEPT_HOST = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

let stack: CatalogStack;
let template: Template;

/** The documents bucket (exports, uploaded imports) and its regional host, as the template names them. */
const documentsId = () =>
  Object.keys(template.findResources('AWS::S3::Bucket')).find((id) => id.startsWith('Documents'))!;
const cspWithDocumentsHost = () => {
  const [before, after] = webCsp('https://HOST').split('HOST');
  return { 'Fn::Join': ['', [before, { 'Fn::GetAtt': [documentsId(), 'RegionalDomainName'] }, after]] };
};

const standard = useStandardStack();
beforeAll(() => {
  ({ stack, template } = standard());
});

const logicalId = (c: { node: { defaultChild?: unknown } }) => stack.getLogicalId(c.node.defaultChild as never);
const distributionConfig = (t: Template = template) =>
  Object.values(t.findResources('AWS::CloudFront::Distribution'))[0].Properties.DistributionConfig;
const originOf = (id: string) => distributionConfig().Origins.find((o: { Id: string }) => o.Id === id);
const behaviour = (pattern: string) =>
  distributionConfig().CacheBehaviors.find((b: { PathPattern: string }) => b.PathPattern === pattern);
/** The execute-api host name of one of the stack's APIs, as the template writes it. */
const apiHost = (apiId: string) => ({
  'Fn::Join': ['', [{ Ref: apiId }, '.execute-api.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }]],
});

/** The app's addresses: its router's paths (web/src/app.tsx) and those the API's mails and payment pages link to. */
const appAddresses = () => {
  const routes = [...readFileSync(join(ROOT, 'web/src/app.tsx'), 'utf8').matchAll(/<Route path="([^"]+)"/g)].map((m) =>
    m[1].replace(/:\w+/g, 'x1'),
  );
  expect(routes).toContain('/sign-in');
  return [
    ...routes,
    '/invitations/accept',
    '/reset-password',
    '/confirm-email',
    '/billing',
    '/billing/success',
    '/billing/cancelled',
  ];
};

describe('Dashboard hosting (S3 + CloudFront, same site as the API)', () => {
  it('keeps the built app in a private, encrypted, SSL-only bucket with server access logs', () => {
    const bucketId = logicalId(stack.web.bucket);
    const [bucket] = Object.values(
      template.findResources('AWS::S3::Bucket', { Properties: { LoggingConfiguration: { LogFilePrefix: 'web/' } } }),
    );
    expect(bucket).toBeDefined();
    expect(bucket.Properties).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
    });
    const statements = Object.values(
      template.findResources('AWS::S3::BucketPolicy', { Properties: { Bucket: { Ref: bucketId } } }),
    )[0].Properties.PolicyDocument.Statement;
    expect(statements).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      ]),
    );
    // Only this distribution reads it (Origin Access Control): no public, no OAI, no other principal.
    const reads = statements.filter((s: { Effect: string }) => s.Effect === 'Allow');
    expect(reads).toHaveLength(1);
    expect(reads[0]).toMatchObject({
      Action: 's3:GetObject',
      Principal: { Service: 'cloudfront.amazonaws.com' },
      Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/*']] },
    });
    expect(JSON.stringify(reads[0].Condition)).toContain(logicalId(stack.web.distribution));
  });

  it('reads the bucket through an Origin Access Control (signed requests), the default behaviour and /assets/* from it', () => {
    template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: {
        OriginAccessControlOriginType: 's3',
        SigningBehavior: 'always',
        SigningProtocol: 'sigv4',
      },
    });
    const oac = Object.keys(template.findResources('AWS::CloudFront::OriginAccessControl'))[0];
    const config = distributionConfig();
    const s3 = originOf(config.DefaultCacheBehavior.TargetOriginId);
    expect(s3).toMatchObject({
      DomainName: { 'Fn::GetAtt': [logicalId(stack.web.bucket), 'RegionalDomainName'] },
      OriginAccessControlId: { 'Fn::GetAtt': [oac, 'Id'] },
      S3OriginConfig: { OriginAccessIdentity: '' },
    });
    expect(config.DefaultCacheBehavior).toMatchObject({
      AllowedMethods: ['GET', 'HEAD'],
      CachePolicyId: CACHING_OPTIMIZED,
      ViewerProtocolPolicy: 'redirect-to-https',
      Compress: true,
    });
    expect(behaviour(ASSETS_PATH_PATTERN)).toMatchObject({
      TargetOriginId: s3.Id,
      CachePolicyId: CACHING_OPTIMIZED,
      AllowedMethods: ['GET', 'HEAD'],
    });
    expect(config.DefaultRootObject).toBe('index.html');
  });

  it('forwards every API path, uncached with every method, header but Host, cookie and query string, to the HTTP API; /progress to the WebSocket API', () => {
    const httpApi = originOf(behaviour('/auth/*').TargetOriginId);
    expect(httpApi).toMatchObject({
      DomainName: apiHost(logicalId(stack.api)),
      CustomOriginConfig: { OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] },
    });
    for (const pattern of API_PATH_PATTERNS) {
      expect(behaviour(pattern), pattern).toMatchObject({
        TargetOriginId: httpApi.Id,
        AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
        CachePolicyId: CACHING_DISABLED,
        OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST,
        ViewerProtocolPolicy: 'https-only',
      });
    }
    const ws = behaviour(PROGRESS_PATH);
    expect(originOf(ws.TargetOriginId).DomainName).toEqual(apiHost(logicalId(stack.progressApi)));
    expect(ws).toMatchObject({ CachePolicyId: CACHING_DISABLED, OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST });
    // The app behaviours, the API patterns and the WebSocket; within CloudFront's default quota of 25.
    expect(distributionConfig().CacheBehaviors).toHaveLength(API_PATH_PATTERNS.length + 2);
    expect(distributionConfig().CacheBehaviors.length).toBeLessThanOrEqual(25);
  });

  it("sends every route of the route table to the API and none of the app's addresses", () => {
    const patterns = [...API_PATH_PATTERNS, PROGRESS_PATH, ASSETS_PATH_PATTERN];
    for (const { route } of allRoutes())
      expect(
        API_PATH_PATTERNS.some((p) => pathPatternMatches(p, samplePath(route.path))),
        route.path,
      ).toBe(true);
    for (const address of appAddresses())
      expect(
        patterns.filter((p) => pathPatternMatches(p, address)),
        address,
      ).toEqual([]);
  });

  it("answers the app's addresses with index.html (a viewer-request function, not error pages that would also hide the API's 404s)", () => {
    const [fn] = Object.values(template.findResources('AWS::CloudFront::Function'));
    expect(fn.Properties.FunctionConfig.Runtime).toBe('cloudfront-js-2.0');
    expect(distributionConfig().DefaultCacheBehavior.FunctionAssociations).toEqual([
      {
        EventType: 'viewer-request',
        FunctionARN: {
          'Fn::GetAtt': [Object.keys(template.findResources('AWS::CloudFront::Function'))[0], 'FunctionARN'],
        },
      },
    ]);
    const handler = new Function(`${fn.Properties.FunctionCode}; return handler;`)() as (e: {
      request: { uri: string };
    }) => { uri: string };
    const uriFor = (uri: string) => handler({ request: { uri } }).uri;
    for (const address of [...appAddresses(), '/', '/p/abc/e/def/topology'])
      expect(uriFor(address), address).toBe('/index.html');
    expect(uriFor('/assets/index-CGfXX8Dq.js')).toBe('/assets/index-CGfXX8Dq.js');
    expect(uriFor('/favicon.svg')).toBe('/favicon.svg');
    expect(distributionConfig().CustomErrorResponses).toBeUndefined();
  });

  it("sends the local server's strict CSP and security headers with the app, no-cache on the page and immutable on its hashed files", () => {
    const policyOf = (pattern?: string) => {
      const ref = (pattern ? behaviour(pattern) : distributionConfig().DefaultCacheBehavior).ResponseHeadersPolicyId
        .Ref;
      return template.toJSON().Resources[ref].Properties.ResponseHeadersPolicyConfig;
    };
    for (const [pattern, cacheControl] of [
      [undefined, WEB_CACHE.revalidate],
      [ASSETS_PATH_PATTERN, WEB_CACHE.immutable],
    ] as const) {
      expect(policyOf(pattern)).toMatchObject({
        SecurityHeadersConfig: {
          ContentSecurityPolicy: { ContentSecurityPolicy: cspWithDocumentsHost(), Override: true },
          ContentTypeOptions: { Override: true },
          ReferrerPolicy: { ReferrerPolicy: 'no-referrer', Override: true },
          StrictTransportSecurity: { AccessControlMaxAgeSec: 31_536_000, IncludeSubdomains: true, Override: true },
        },
        CustomHeadersConfig: { Items: [{ Header: 'Cache-Control', Value: cacheControl, Override: true }] },
      });
    }
    expect(webCsp()).toContain("script-src 'self'");
    expect(webCsp()).toContain("connect-src 'self';");
    expect(webCsp('https://documents.example')).toContain("connect-src 'self' https://documents.example;");
  });

  it("lets the page PUT an import's document to the documents bucket: its host in the CSP, a CORS rule for PUT only", () => {
    const policy = JSON.stringify(Object.values(template.findResources('AWS::CloudFront::ResponseHeadersPolicy'))[0]);
    expect(policy).toContain(`"Fn::GetAtt":["${documentsId()}","RegionalDomainName"]`);
    const cors = (props: CatalogStackProps) => {
      const t = props.siteDomainName ? synth(props).template : template;
      return Object.values(t.findResources('AWS::S3::Bucket'))
        .map((b) => b.Properties.CorsConfiguration)
        .filter(Boolean);
    };
    expect(cors({})).toEqual([
      {
        CorsRules: [{ AllowedMethods: ['PUT'], AllowedOrigins: ['*'], AllowedHeaders: ['content-type'], MaxAge: 3600 }],
      },
    ]);
    expect(
      cors({
        siteDomainName: 'catalog.example.com',
        siteCertificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/abc',
      })[0].CorsRules[0].AllowedOrigins,
    ).toEqual(['https://catalog.example.com']);
  });

  it('deploys web/dist into the bucket, pruning earlier builds and invalidating the distribution', () => {
    const [deployment] = Object.values(template.findResources('Custom::CDKBucketDeployment'));
    expect(deployment.Properties).toMatchObject({
      DestinationBucketName: { Ref: logicalId(stack.web.bucket) },
      Prune: true,
      DistributionId: { Ref: logicalId(stack.web.distribution) },
      DistributionPaths: ['/*'],
      SourceObjectKeys: [expect.stringMatching(/\.zip$/)],
    });
    expect(existsSync(join(WEB_DIST, 'index.html'))).toBe(true);
  });

  it("logs the distribution to the access-log bucket, which keeps ACLs for CloudFront's delivery", () => {
    const logs = Object.entries(template.findResources('AWS::S3::Bucket')).find(
      ([, b]) =>
        !b.Properties.LoggingConfiguration && b.Properties.LifecycleConfiguration?.Rules?.[0]?.ExpirationInDays === 365,
    )!;
    expect(distributionConfig().Logging).toEqual({
      Bucket: { 'Fn::GetAtt': [logs[0], 'RegionalDomainName'] },
      Prefix: 'cloudfront/',
    });
    expect(logs[1].Properties.OwnershipControls).toEqual({ Rules: [{ ObjectOwnership: 'BucketOwnerPreferred' }] });
  });

  it('proves to the API that a request came through the site: the HTTP API origin carries the origin secret the functions know', () => {
    const httpApi = originOf(behaviour('/auth/*').TargetOriginId);
    const secret = Object.keys(template.findResources('AWS::SecretsManager::Secret')).find((id) =>
      id.startsWith('OriginVerify'),
    )!;
    const resolved = { 'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: secret }, ':SecretString:::}}']] };
    expect(httpApi.OriginCustomHeaders).toEqual([{ HeaderName: 'x-origin-verify', HeaderValue: resolved }]);
    expect(originOf(behaviour(PROGRESS_PATH).TargetOriginId).OriginCustomHeaders).toBeUndefined();
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ ORIGIN_VERIFY_SECRET: resolved }) },
    });
  });

  it("puts the API's links, allowed origin and progress WebSocket on the site", () => {
    const domain = { 'Fn::GetAtt': [logicalId(stack.web.distribution), 'DomainName'] };
    const site = { 'Fn::Join': ['', ['https://', domain]] };
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          APP_BASE_URL: site,
          API_BASE_URL: site,
          WS_BASE_URL: { 'Fn::Join': ['', ['wss://', domain, PROGRESS_PATH]] },
        }),
      },
    });
    template.hasOutput('SiteUrl', { Value: site });
  });

  it('with a custom domain: its name and certificate, TLS 1.2 at least, and links on that domain; cdk-nag clean', () => {
    const certificateArn = 'arn:aws:acm:us-east-1:123456789012:certificate/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b';
    const { stack: s, template: t } = synth({
      siteDomainName: 'catalog.example.com',
      siteCertificateArn: certificateArn,
    });
    expect(distributionConfig(t)).toMatchObject({
      Aliases: ['catalog.example.com'],
      ViewerCertificate: {
        AcmCertificateArn: certificateArn,
        MinimumProtocolVersion: 'TLSv1.2_2021',
        SslSupportMethod: 'sni-only',
      },
    });
    t.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          APP_BASE_URL: 'https://catalog.example.com',
          WS_BASE_URL: 'wss://catalog.example.com/progress',
        }),
      },
    });
    const report = new AwsSolutionsChecks().validateScope(s);
    expect(
      report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`),
    ).toEqual([]);
    expect(() => synth({ siteDomainName: 'catalog.example.com' })).toThrow(/go together/);
  }, 180_000);

  it('refuses to synthesize without a built dashboard, saying how to build it', () => {
    expect(() => synth({ webDist: join(synthOutdir(), 'no-such-dist') })).toThrow(/npm run build:web/);
  });

  it('passes the AwsSolutions checks', () => {
    const report = new AwsSolutionsChecks().validateScope(stack);
    expect(
      report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`),
    ).toEqual([]);
  });
});
