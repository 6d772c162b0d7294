import type * as S3 from '@aws-sdk/client-s3';
import { config } from './config';
import { onReset } from './clients/lazy';
import { captured } from './tracing';

/**
 * Documents (exports, uploaded imports) in the one bucket: S3 in the cloud, s3rver locally. The SDK is
 * imported on first use (a dynamic import stays one in the bundle): most requests of the functions
 * that can store a document never do, and their cold start does not pay for it.
 */
let made: Promise<{ sdk: typeof S3; client: S3.S3Client }> | undefined;
onReset(() => {
  void made?.then(({ client }) => client.destroy());
  made = undefined;
});

function s3() {
  made ??= import('@aws-sdk/client-s3').then((sdk) => {
    const { S3_ENDPOINT, AWS_REGION } = config();
    const client = captured(new sdk.S3Client({
      region: AWS_REGION,
      // Locally s3rver: path-style, its fixed credentials; checksums only when required (s3rver understands those).
      ...(S3_ENDPOINT ? { endpoint: S3_ENDPOINT, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } } : {}),
      requestChecksumCalculation: 'WHEN_REQUIRED',
    }));
    return { sdk, client };
  });
  return made;
}

export async function putDocument(key: string, text: string, contentType: string): Promise<void> {
  const { sdk, client } = await s3();
  // A Buffer (not a stream): s3rver would otherwise keep the aws-chunked framing.
  await client.send(new sdk.PutObjectCommand({ Bucket: config().BUCKET_NAME, Key: key, Body: Buffer.from(text, 'utf8'), ContentType: contentType }));
}

/**
 * A presigned GET of a document (issue 26): valid `seconds`, it needs no other credential, so a
 * browser or curl fetches the object straight from the bucket; the download is named `filename`.
 */
export async function documentDownloadUrl(key: string, seconds: number, filename: string): Promise<string> {
  const [{ sdk, client }, { getSignedUrl }] = await Promise.all([s3(), import('@aws-sdk/s3-request-presigner')]);
  const command = new sdk.GetObjectCommand({
    Bucket: config().BUCKET_NAME, Key: key, ResponseContentType: 'application/yaml; charset=utf-8', ResponseContentDisposition: `attachment; filename="${filename}"`,
  });
  return getSignedUrl(client, command, { expiresIn: seconds });
}

export async function getDocument(key: string): Promise<string> {
  const { sdk, client } = await s3();
  const out = await client.send(new sdk.GetObjectCommand({ Bucket: config().BUCKET_NAME, Key: key }));
  return (await out.Body?.transformToString('utf8')) ?? '';
}
