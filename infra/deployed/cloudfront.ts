import { createReadStream, existsSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { extname, join, normalize, sep } from 'node:path';
import { runInNewContext } from 'node:vm';
import type { Resolver } from './intrinsics.ts';
import { assetPath, referencedId, resourcesOf, type CloudAssembly, type Json } from './template.ts';

/** Where a behaviour's requests go: a bucket's files, or an API (by its logical id), with the headers CloudFront adds. */
export type Origin =
  | { kind: 'bucket'; dirs: string[] }
  | { kind: 'api'; apiId: string; headers: Record<string, string> };

interface Behaviour {
  pattern: RegExp;
  origin: Origin;
  viewerRequest?: string;
  responseHeaders: Record<string, string>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/** A CloudFront path pattern (`/assets/*`, `/billing/*\/webhook`) as a regular expression: `*` any characters, `?` one. */
export const pathPattern = (p: string) =>
  new RegExp(
    `^${p
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );

/** A response headers policy's headers (security headers and custom ones), as CloudFront adds them. */
function policyHeaders(resolver: Resolver, policy: Json | undefined): Record<string, string> {
  const c = policy ? (resolver.resolve(policy.ResponseHeadersPolicyConfig) as Json) : undefined;
  if (!c) return {};
  const s = c.SecurityHeadersConfig ?? {};
  const h: Record<string, string> = {};
  if (s.ContentSecurityPolicy) h['content-security-policy'] = s.ContentSecurityPolicy.ContentSecurityPolicy;
  if (s.ContentTypeOptions) h['x-content-type-options'] = 'nosniff';
  if (s.ReferrerPolicy) h['referrer-policy'] = s.ReferrerPolicy.ReferrerPolicy;
  if (s.FrameOptions) h['x-frame-options'] = s.FrameOptions.FrameOption;
  if (s.StrictTransportSecurity)
    h['strict-transport-security'] =
      `max-age=${s.StrictTransportSecurity.AccessControlMaxAgeSec}${s.StrictTransportSecurity.IncludeSubdomains ? '; includeSubDomains' : ''}`;
  for (const item of c.CustomHeadersConfig?.Items ?? []) h[String(item.Header).toLowerCase()] = item.Value;
  return h;
}

/**
 * The distribution in front of the site, as its template declares it: behaviours in order (the default
 * last) pick the origin, a viewer-request CloudFront Function (run as written, in a VM context) may
 * rewrite the URI, response headers policies add their headers. Bucket origins serve what the
 * template's BucketDeployment puts in the bucket (its asset folders); API origins get the custom
 * headers (x-origin-verify) and CloudFront-Viewer-Address.
 */
export function cloudFront(
  assembly: CloudAssembly,
  resolver: Resolver,
  distributionId: string,
  apis: Record<string, (req: IncomingMessage, res: ServerResponse, headers: Record<string, string>) => Promise<void>>,
  webSockets: Record<string, (req: IncomingMessage, socket: Duplex, head: Buffer) => Promise<void>> = {},
) {
  const config = assembly.resources[distributionId].Properties!.DistributionConfig;
  const apiIdsByHost = Object.fromEntries(
    resourcesOf(assembly, 'AWS::ApiGatewayV2::Api').map(([id]) => [`${resolver.ref(id)}.execute-api`, id]),
  );

  const originOf = (id: string): Origin => {
    const o = (config.Origins as Json[]).find((x) => x.Id === id);
    if (!o) throw new Error(`no origin ${id}`);
    if (o.S3OriginConfig) {
      const bucket = referencedId(o.DomainName);
      const dirs = resourcesOf(assembly, 'Custom::CDKBucketDeployment')
        .filter(([, d]) => referencedId(d.Properties!.DestinationBucketName) === bucket)
        .flatMap(([, d]) => (d.Properties!.SourceObjectKeys as string[]).map((key) => assetPath(assembly, key)));
      return { kind: 'bucket', dirs };
    }
    const host = String(resolver.resolve(o.DomainName));
    const apiId = apiIdsByHost[host.split('.').slice(0, 2).join('.')];
    if (!apiId) throw new Error(`origin ${id} (${host}) is neither a bucket nor an API of the template`);
    const headers = Object.fromEntries(
      ((o.OriginCustomHeaders ?? []) as { HeaderName: string; HeaderValue: unknown }[]).map((h) => [
        h.HeaderName.toLowerCase(),
        String(resolver.resolve(h.HeaderValue)),
      ]),
    );
    return { kind: 'api', apiId, headers };
  };
  const behaviour = (b: Json, pattern: string): Behaviour => {
    const fnId = referencedId(
      b.FunctionAssociations?.find((f: { EventType: string }) => f.EventType === 'viewer-request')?.FunctionARN,
    );
    const policyId = referencedId(b.ResponseHeadersPolicyId);
    return {
      pattern: pathPattern(pattern),
      origin: originOf(b.TargetOriginId),
      viewerRequest: fnId ? String(assembly.resources[fnId].Properties!.FunctionCode) : undefined,
      responseHeaders: policyHeaders(resolver, policyId ? assembly.resources[policyId]?.Properties : undefined),
    };
  };
  const behaviours: Behaviour[] = [
    ...(config.CacheBehaviors ?? []).map((b: { PathPattern: string }) => behaviour(b, b.PathPattern)),
    behaviour(config.DefaultCacheBehavior, '*'),
  ];

  function serveFile(dirs: string[], uri: string, res: ServerResponse, headers: Record<string, string>): void {
    const key = uri === '/' ? `/${config.DefaultRootObject ?? 'index.html'}` : uri;
    const file = dirs
      .map((d) => [d, join(d, normalize(decodeURIComponent(key)))])
      .find(([d, f]) => f.startsWith(d + sep) && existsSync(f) && statSync(f).isFile())?.[1];
    if (!file) {
      // S3 behind an origin access control, without ListBucket: a missing key is 403.
      res.writeHead(403, { 'content-type': 'application/xml', ...headers });
      res.end('<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>');
      return;
    }
    res.writeHead(200, {
      'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
      'content-length': String(statSync(file).size),
      ...headers,
    });
    createReadStream(file).pipe(res);
  }

  const behaviourOf = (req: IncomingMessage) =>
    behaviours.find((x) => x.pattern.test(new URL(req.url ?? '/', 'http://x').pathname))!;

  /** A WebSocket upgrade: to the WebSocket API its behaviour's origin is, else refused. */
  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const { origin } = behaviourOf(req);
    const api = origin.kind === 'api' ? webSockets[origin.apiId] : undefined;
    if (!api) return void socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    return api(req, socket, head);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const b = behaviourOf(req);
    if (b.origin.kind === 'api') {
      const api = apis[b.origin.apiId];
      if (!api) {
        res.writeHead(502).end();
        return;
      }
      for (const [k, v] of Object.entries(b.responseHeaders)) res.setHeader(k, v);
      const viewer = `${req.socket.remoteAddress}:${req.socket.remotePort}`;
      return api(req, res, { ...b.origin.headers, 'cloudfront-viewer-address': viewer, via: '2.0 local (CloudFront)' });
    }
    let uri = url.pathname;
    if (b.viewerRequest) {
      const event = {
        version: '1.0',
        context: { eventType: 'viewer-request' },
        viewer: { ip: req.socket.remoteAddress },
        request: { method: req.method, uri, querystring: {}, headers: {}, cookies: {} },
      };
      const out = runInNewContext(`${b.viewerRequest}\nhandler(event);`, { event }) as { uri?: string };
      uri = out.uri ?? uri;
    }
    serveFile(b.origin.dirs, uri, res, b.responseHeaders);
  }
  return { handle, upgrade };
}
