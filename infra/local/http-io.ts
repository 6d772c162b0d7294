import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { apiEvent } from './api-event.ts';

/** How API Gateway's side of a request is read and a Lambda's answer written: `npm start`'s server and `start:deployed`'s HTTP API. */
const MAX_BODY = 10 * 1024 * 1024; // API Gateway's payload limit

/** Writes a payload 2.0 answer (headers, cookies, body in base64 or not) to the response. */
export function send(res: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  const headers: Record<string, string | string[]> = { ...(result.headers as Record<string, string>) };
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  const body = result.body ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  headers['content-length'] = String(body.length);
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(body);
}

/** The request's body; undefined when it is larger than API Gateway takes. */
export function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => resolve(size > MAX_BODY ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const TEXTUAL = /^(application\/(json|.*\+json|x-www-form-urlencoded|xml|yaml)|text\/)/;

/** Turns an HTTP request into the API Gateway event; the source IP is the socket's, never X-Forwarded-For (API Gateway's cannot be spoofed either). */
export function requestEvent(
  req: IncomingMessage,
  body: Buffer,
  routeKey: string | undefined,
  params: Record<string, string>,
) {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(',') : v;
  const isText = !body.length || TEXTUAL.test(headers['content-type'] ?? 'application/json');
  return apiEvent({
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    headers,
    body: body.length ? body.toString(isText ? 'utf8' : 'base64') : undefined,
    isBase64Encoded: !isText && body.length > 0,
    sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
    httpVersion: req.httpVersion,
    routeKey,
    pathParameters: params,
  });
}
