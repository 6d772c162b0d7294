import { config } from './config.ts';
import { lazyByInvocation } from './clients/background-retries.ts';

/**
 * Documents (exports, uploaded imports) in the one bucket: S3 in the cloud, s3rver locally. The SDK is
 * imported on first use (a dynamic import stays one in the bundle): most requests of the functions
 * that can store a document never do, and their cold start does not pay for it.
 */
const s3 = lazyByInvocation(
  () => import('@aws-sdk/client-s3'),
  (sdk, settings) => {
    const { S3_ENDPOINT, AWS_REGION } = config();
    return new sdk.S3Client({
      region: AWS_REGION,
      // Locally s3rver: path-style, its fixed credentials; checksums only when required (s3rver understands those).
      ...(S3_ENDPOINT
        ? {
            endpoint: S3_ENDPOINT,
            forcePathStyle: true,
            credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
          }
        : {}),
      requestChecksumCalculation: 'WHEN_REQUIRED',
      ...settings,
    });
  },
);

export async function putDocument(key: string, text: string, contentType: string): Promise<void> {
  const { sdk, client } = await s3();
  // A Buffer (not a stream): s3rver would otherwise keep the aws-chunked framing.
  await client.send(
    new sdk.PutObjectCommand({
      Bucket: config().BUCKET_NAME,
      Key: key,
      Body: Buffer.from(text, 'utf8'),
      ContentType: contentType,
    }),
  );
}

/** Parts of a streamed upload: S3's smallest, so that the uploader holds at most a few megabytes of the document. */
const PART_BYTES = 5 * 1024 * 1024;

/**
 * Streams a document into the bucket as it is produced (an export of any size is never held
 * whole): `@aws-sdk/lib-storage`'s Upload cuts the stream into 5 MB parts of a multipart upload (one
 * PutObject when it is smaller), two in flight, and aborts the upload when the stream fails.
 */
export async function uploadDocument(
  key: string,
  body: AsyncIterable<string | Uint8Array>,
  contentType: string,
): Promise<void> {
  const [{ client }, { Upload }, { Readable }] = await Promise.all([
    s3(),
    import('@aws-sdk/lib-storage'),
    import('node:stream'),
  ]);
  const upload = new Upload({
    client,
    params: { Bucket: config().BUCKET_NAME, Key: key, Body: Readable.from(body), ContentType: contentType },
    partSize: PART_BYTES,
    queueSize: 2,
  });
  await upload.done();
}

/**
 * A presigned GET of a document: valid `seconds` from `signedAt` (the caller's clock, so
 * the URL ends when the service says it does), it needs no other credential, so a browser or curl
 * fetches the object straight from the bucket; the download is named `filename`.
 */
export async function documentDownloadUrl(
  key: string,
  signedAt: Date,
  seconds: number,
  filename: string,
): Promise<string> {
  const [{ sdk, client }, { getSignedUrl }] = await Promise.all([s3(), import('@aws-sdk/s3-request-presigner')]);
  const command = new sdk.GetObjectCommand({
    Bucket: config().BUCKET_NAME,
    Key: key,
    ResponseContentType: 'application/yaml; charset=utf-8',
    ResponseContentDisposition: `attachment; filename="${filename}"`,
  });
  return getSignedUrl(client, command, { signingDate: signedAt, expiresIn: seconds });
}

/**
 * A presigned PUT of a document: its size and content type are signed, so S3 takes exactly
 * that many bytes of that type and nothing else; valid `seconds` from `signedAt` (the caller's clock).
 */
export async function documentUploadUrl(
  key: string,
  signedAt: Date,
  seconds: number,
  size: number,
  contentType: string,
): Promise<string> {
  const [{ sdk, client }, { getSignedUrl }] = await Promise.all([s3(), import('@aws-sdk/s3-request-presigner')]);
  const command = new sdk.PutObjectCommand({
    Bucket: config().BUCKET_NAME,
    Key: key,
    ContentLength: size,
    ContentType: contentType,
  });
  return getSignedUrl(client, command, {
    signingDate: signedAt,
    expiresIn: seconds,
    signableHeaders: new Set(['content-length', 'content-type']),
  });
}

/** A document's size in bytes, or undefined when there is none. */
export async function documentSize(key: string): Promise<number | undefined> {
  const { sdk, client } = await s3();
  try {
    return (
      (await client.send(new sdk.HeadObjectCommand({ Bucket: config().BUCKET_NAME, Key: key }))).ContentLength ?? 0
    );
  } catch (err) {
    if (
      (err as { name?: string }).name === 'NotFound' ||
      (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404
    )
      return undefined;
    throw err;
  }
}

export async function getDocument(key: string): Promise<string> {
  const { sdk, client } = await s3();
  const out = await client.send(new sdk.GetObjectCommand({ Bucket: config().BUCKET_NAME, Key: key }));
  return (await out.Body?.transformToString('utf8')) ?? '';
}
