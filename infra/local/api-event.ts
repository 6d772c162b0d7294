import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

export interface ApiRequest {
  method: string;
  /** Path with its query string, e.g. `/services?tags=a&tags=b`. */
  url: string;
  headers?: Record<string, string>;
  body?: string;
  isBase64Encoded?: boolean;
  sourceIp?: string;
  httpVersion?: string;
  /** The matched route (`GET /services/{service_id}`) and its parameters, as API Gateway resolves them. */
  routeKey?: string;
  pathParameters?: Record<string, string>;
}

/** The API Gateway HTTP API (payload 2.0) event Lambda receives for a request. */
export function apiEvent(req: ApiRequest): APIGatewayProxyEventV2 {
  const url = new URL(req.url, 'http://local');
  const headers = Object.fromEntries(Object.entries(req.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v; // API Gateway joins repeats
  const key = req.routeKey ?? '$default';
  const now = new Date();
  return {
    version: '2.0',
    routeKey: key,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    cookies: headers.cookie
      ? headers.cookie
          .split(';')
          .map((c) => c.trim())
          .filter(Boolean)
      : undefined,
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters: req.pathParameters && Object.keys(req.pathParameters).length ? req.pathParameters : undefined,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: req.method.toUpperCase(),
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion ?? '1.1'}`,
        sourceIp: req.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: key,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: req.body,
    isBase64Encoded: req.isBase64Encoded ?? false,
  };
}

/** A Lambda context good enough for handlers run in-process. */
export function lambdaContext(requestId: string, group: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `local-${group}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:local-${group}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/local-${group}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 29_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
