import type { Iam } from '../iam.ts';
import { xmlError, type AwsRequest, type AwsResponse } from './aws-request.ts';
import { forward } from './forward.ts';

/** s3rver's own key id: the proxy, having authorized the caller, hands the request on under it (s3rver runs with mismatched signatures allowed). */
const S3RVER_KEY = 'S3RVER';

/** A path-style S3 request → the IAM action and the bucket or object ARN it touches. */
export function s3Check(method: string, url: URL): { action: string; resource: string } {
  const [, bucket, ...rest] = url.pathname.split('/');
  const key = rest.map(decodeURIComponent).join('/');
  const q = url.searchParams;
  if (!key)
    return { action: method === 'GET' ? 's3:ListBucket' : `s3:${method}Bucket`, resource: `arn:aws:s3:::${bucket}` };
  const object = `arn:aws:s3:::${bucket}/${key}`;
  if (method === 'GET' || method === 'HEAD') return { action: 's3:GetObject', resource: object };
  if (method === 'DELETE')
    return { action: q.has('uploadId') ? 's3:AbortMultipartUpload' : 's3:DeleteObject', resource: object };
  return { action: 's3:PutObject', resource: object }; // PUT, and a multipart upload's POSTs
}

/**
 * s3rver behind IAM: a request (or a presigned URL, which carries its signer's rights) is authorized
 * for the key that signed it; an expired presigned URL is refused as S3 refuses it. CORS preflights
 * (unsigned) pass to s3rver, which answers them from the bucket's CORS rules.
 */
export function createS3Proxy(upstream: string, iam: Iam, now: () => number = Date.now) {
  return async function s3(req: AwsRequest): Promise<AwsResponse> {
    const url = new URL(req.url, 'http://x');
    if (req.method !== 'OPTIONS') {
      const date = url.searchParams.get('X-Amz-Date');
      const expires = Number(url.searchParams.get('X-Amz-Expires'));
      if (date && expires) {
        const signedAt = Date.parse(
          date.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
        );
        if (now() > signedAt + expires * 1000) return xmlError('AccessDenied', 'Request has expired');
      }
      const { action, resource } = s3Check(req.method, url);
      if (!(await iam.allows(req.accessKeyId, action, resource)))
        return xmlError('AccessDenied', iam.message(req.accessKeyId, action, resource));
    }
    const credential = url.searchParams.get('X-Amz-Credential');
    if (credential) url.searchParams.set('X-Amz-Credential', credential.replace(/^[^/]+/, S3RVER_KEY));
    url.searchParams.delete('X-Amz-Security-Token');
    const headers = { ...req.headers };
    if (headers.authorization)
      headers.authorization = headers.authorization.replace(/Credential=[^/]+/, `Credential=${S3RVER_KEY}`);
    return forward(
      upstream,
      { ...req, headers },
      { url: url.pathname + url.search, dropHeaders: ['x-amz-security-token'] },
    );
  };
}
