import type { APIGatewayProxyStructuredResultV2 as Result } from 'aws-lambda';
import type { Reply } from './route.ts';

const JSON_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };

/** A route's reply as API Gateway's payload 2.0 answer (JSON unless the route gave text with its type, or bytes). */
export function toResult(reply: Reply): Result {
  const hasBody = reply.body !== undefined && reply.status !== 204 && reply.status !== 304;
  const raw = typeof reply.body === 'string' && reply.headers?.['content-type'];
  const bytes = hasBody && reply.body instanceof Uint8Array; // a compressed answer (shared/http/compress.ts)
  return {
    statusCode: reply.status,
    headers: { ...(hasBody ? JSON_HEADERS : { 'cache-control': 'no-store' }), ...reply.headers },
    ...(reply.cookies?.length ? { cookies: reply.cookies } : {}),
    body: bytes
      ? Buffer.from(reply.body as Uint8Array).toString('base64')
      : hasBody
        ? raw
          ? (reply.body as string)
          : JSON.stringify(reply.body)
        : '',
    ...(bytes ? { isBase64Encoded: true } : {}),
  };
}
