import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { s3 } from './clients';
import { config } from './config';

/** Documents (exports, uploaded imports) in the one bucket: S3 in the cloud, s3rver locally. */
export async function putDocument(key: string, text: string, contentType: string): Promise<void> {
  // A Buffer (not a stream): s3rver would otherwise keep the aws-chunked framing.
  await s3().send(new PutObjectCommand({ Bucket: config().BUCKET_NAME, Key: key, Body: Buffer.from(text, 'utf8'), ContentType: contentType }));
}

export async function getDocument(key: string): Promise<string> {
  const out = await s3().send(new GetObjectCommand({ Bucket: config().BUCKET_NAME, Key: key }));
  return (await out.Body?.transformToString('utf8')) ?? '';
}
