import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join } from 'node:path';
import { securityHeaders } from '#http/security';
import { config } from '#shared/config';
import { WEB_DIST } from '../build/web-build.ts';
import { WEB_CACHE, WEB_FILE_PATH, webCsp } from '../web-policy.ts';

/** The dashboard (`web/`) as the local server serves it: the built single-page app from `web/dist` (infra/build/web-build.ts). */
const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/** The CSP with the local S3 stand-in as the documents' upload host (another port, so another origin). */
const csp = () => {
  const { S3_ENDPOINT } = config();
  return webCsp(S3_ENDPOINT ? new URL(S3_ENDPOINT).origin : undefined);
};

function answer(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: Buffer | string,
): true {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, {
    ...securityHeaders(),
    'content-security-policy': csp(),
    ...headers,
    'content-length': String(bytes.length),
  });
  res.end(req.method === 'HEAD' ? undefined : bytes);
  return true;
}

/**
 * Answers the dashboard's requests; false for anything else (the API's). A request is the dashboard's
 * when it asks for one of its files, or when it is a GET of a path no API route answers (any method)
 * from a browser that accepts HTML: the app's own deep links (`/sign-in`, `/p/<project>/…`), which
 * all get `index.html`. An API path asked by a browser still gets the API's answer.
 */
export async function webApp(
  req: IncomingMessage,
  res: ServerResponse,
  isApiPath: (path: string) => boolean,
): Promise<boolean> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const path = new URL(req.url ?? '/', 'http://local').pathname;
  const file = WEB_FILE_PATH.exec(path);
  if (file) {
    try {
      const body = await readFile(join(WEB_DIST, file[1]));
      const immutable = file[1].startsWith('assets/');
      return answer(
        req,
        res,
        200,
        {
          'content-type': TYPES[extname(file[1])] ?? 'application/octet-stream',
          'cache-control': immutable ? WEB_CACHE.immutable : WEB_CACHE.revalidate,
        },
        body,
      );
    } catch {
      return answer(
        req,
        res,
        404,
        { 'content-type': 'application/json', 'cache-control': 'no-store' },
        JSON.stringify({ detail: 'Not Found' }),
      );
    }
  }
  if (isApiPath(path) || !/\btext\/html\b/.test(req.headers.accept ?? '')) return false;
  const index = join(WEB_DIST, 'index.html');
  if (!existsSync(index) || !statSync(index).isFile()) {
    return answer(
      req,
      res,
      503,
      { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
      'The dashboard is not built: run `npm run build:web` (npm start builds it by itself).\n',
    );
  }
  return answer(
    req,
    res,
    200,
    { 'content-type': 'text/html; charset=utf-8', 'cache-control': WEB_CACHE.revalidate },
    await readFile(index),
  );
}
