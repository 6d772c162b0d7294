import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jsonError, signer, type AwsResponse, type ServiceHandler } from './stand-ins/aws-request.ts';
import { outlastClientIdle } from '../local/keep-alive.ts';

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** A call's operation: the JSON protocol's target, the query protocol's Action, else the REST method (S3, the management API). */
function operationOf(target: string | string[] | undefined, body: Buffer, method = 'GET'): string {
  if (typeof target === 'string') return target.slice(target.lastIndexOf('.') + 1);
  return /(?:^|&)Action=([A-Za-z]+)/.exec(body.subarray(0, 200).toString('latin1'))?.[1] ?? method;
}

/**
 * The one address every function's SDK clients are pointed at (AWS_ENDPOINT_URL_<SERVICE>): each
 * request goes to its service's stand-in by the service its SigV4 credential scope names. An unsigned
 * request is refused, except CORS preflights (S3's, from the dashboard's presigned uploads).
 */
export async function startAwsEndpoint(
  services: Record<string, ServiceHandler>,
  log: (line: string) => void,
): Promise<{ server: Server; url: string; calls: () => Record<string, number> }> {
  const calls = new Map<string, number>();
  const server = createServer(async (req, res) => {
    try {
      const body = await readBody(req);
      const signed = signer(req);
      const service = signed?.service ?? (req.method === 'OPTIONS' ? 's3' : undefined);
      const call = `${service}:${operationOf(req.headers['x-amz-target'], body, req.method)}`;
      calls.set(call, (calls.get(call) ?? 0) + 1);
      const handler = service ? services[service] : undefined;
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(',') : v;
      const answer: AwsResponse = !handler
        ? jsonError(
            'AccessDeniedException',
            signed ? `no local stand-in for the ${signed.service} service` : 'unsigned request',
            403,
          )
        : await handler({
            method: req.method ?? 'GET',
            url: req.url ?? '/',
            headers,
            body,
            service: service!,
            accessKeyId: signed?.accessKeyId ?? '',
          });
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    } catch (err) {
      log(`AWS stand-in failed: ${(err as Error).stack ?? err}`);
      res.writeHead(500, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify({ __type: 'InternalFailure', message: String(err) }));
    }
  });
  outlastClientIdle(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: () => Object.fromEntries([...calls].sort()),
  };
}
