import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Reply } from './route.ts';

/**
 * A JSON answer compressed for the caller: API Gateway's HTTP API and the dashboard's CloudFront
 * behaviour for the API pass answers as they are (neither compresses), so a route with a large
 * answer compresses it itself: Brotli when the request's Accept-Encoding takes it (quality 4: near
 * gzip's speed, smaller), else gzip, else none; small answers are sent as they are. The body goes
 * out base64-encoded (payload 2.0), which the local server decodes as API Gateway does.
 */
const SMALLEST = 1024;

export type Coding = 'br' | 'gzip' | 'identity';

/** The coding an answer takes for a request's Accept-Encoding: Brotli when it takes it, else gzip, else none. */
export function chosenCoding(acceptEncoding: string | undefined): Coding {
  const accepts = (coding: string) =>
    (acceptEncoding ?? '')
      .split(',')
      .map((part) => part.trim().split(';'))
      .some(
        ([name, ...params]) =>
          name.trim().toLowerCase() === coding && !params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p)),
      );
  return accepts('br') ? 'br' : accepts('gzip') ? 'gzip' : 'identity';
}

export function compressedJson(body: unknown, coding: Coding, headers: Record<string, string>): Reply {
  const text = JSON.stringify(body);
  const vary = { ...headers, vary: 'Accept-Encoding', 'content-type': 'application/json' };
  if (text.length < SMALLEST || coding === 'identity') return { status: 200, body: text, headers: vary };
  if (coding === 'br')
    return {
      status: 200,
      body: brotliCompressSync(text, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: text.length },
      }),
      headers: { ...vary, 'content-encoding': 'br' },
    };
  return { status: 200, body: gzipSync(text, { level: 5 }), headers: { ...vary, 'content-encoding': 'gzip' } };
}
