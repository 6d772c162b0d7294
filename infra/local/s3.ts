import { resolve } from 'node:path';
import { mkdir } from 'node:fs/promises';
import S3rver from 's3rver';
import { freePort } from './ports';

export interface LocalS3 {
  endpoint: string;
  stop(): Promise<void>;
}

/** s3rver keeps objects as files under `dir` and creates the bucket at start. */
export async function startS3(dir: string, bucket: string, port?: number): Promise<LocalS3> {
  await mkdir(resolve(dir), { recursive: true });
  const server = new S3rver({
    port: port ?? (await freePort()),
    address: '127.0.0.1',
    directory: resolve(dir),
    silent: true,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port: bound } = await server.run();
  return { endpoint: `http://127.0.0.1:${bound}`, stop: () => server.close() };
}
