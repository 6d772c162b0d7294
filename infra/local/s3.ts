import { resolve } from 'node:path';
import { mkdir } from 'node:fs/promises';
import S3rver from 's3rver';
import { freePort } from './ports.ts';

export interface LocalS3 {
  endpoint: string;
  stop(): Promise<void>;
}

/** The dashboard (another origin: the local server's port) PUTs an import's document to its presigned URL, as in the cloud (infra/cdk/data.ts). */
const CORS =
  '<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>PUT</AllowedMethod><AllowedHeader>content-type</AllowedHeader><MaxAgeSeconds>3600</MaxAgeSeconds></CORSRule></CORSConfiguration>';

/**
 * s3rver keeps objects as files under `dir` and creates the bucket (or buckets: start:deployed's, one per
 * template bucket) at start. `allowMismatchedSignatures`: start:deployed's IAM proxy has authorized the
 * caller already and hands s3rver the request under s3rver's own key id, signed by another key.
 */
export async function startS3(
  dir: string,
  bucket: string | string[],
  port?: number,
  opts: { allowMismatchedSignatures?: boolean } = {},
): Promise<LocalS3> {
  await mkdir(resolve(dir), { recursive: true });
  const server = new S3rver({
    port: port ?? (await freePort()),
    address: '127.0.0.1',
    directory: resolve(dir),
    silent: true,
    allowMismatchedSignatures: opts.allowMismatchedSignatures ?? false,
    configureBuckets: [bucket].flat().map((name) => ({ name, configs: [CORS] })),
  });
  const { port: bound } = await server.run();
  return { endpoint: `http://127.0.0.1:${bound}`, stop: () => server.close() };
}
