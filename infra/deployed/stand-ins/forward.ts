import { request } from 'node:http';
import type { AwsRequest, AwsResponse } from './aws-request.ts';

/** Sends a request on to the emulator behind a proxy (DynamoDB Local, s3rver) and answers what it answered. */
export function forward(
  upstream: string,
  req: AwsRequest,
  opts: { url?: string; dropHeaders?: string[] } = {},
): Promise<AwsResponse> {
  const target = new URL(opts.url ?? req.url, upstream);
  const headers: Record<string, string> = {
    ...req.headers,
    host: target.host,
    'content-length': String(req.body.length),
  };
  for (const h of opts.dropHeaders ?? []) delete headers[h];
  delete headers['transfer-encoding'];
  return new Promise((resolve, reject) => {
    const out = request(target, { method: req.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const h: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers))
          if (v !== undefined && k !== 'transfer-encoding' && k !== 'connection')
            h[k] = Array.isArray(v) ? v.join(', ') : v;
        resolve({ status: res.statusCode ?? 502, headers: h, body: Buffer.concat(chunks) });
      });
      res.on('error', reject);
    });
    out.on('error', reject);
    out.end(req.body);
  });
}
