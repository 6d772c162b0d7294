import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** The header CloudFront adds to what it forwards to the API (infra/cdk/web-hosting.ts). */
export const ORIGIN_VERIFY_HEADER = 'x-origin-verify';

const sameSecret = (presented: string, secret: string) => {
  const a = Buffer.from(presented);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * The caller's address. Behind the site's CloudFront distribution API Gateway sees an edge's address,
 * shared by everyone near it; CloudFront names the viewer in `CloudFront-Viewer-Address` (`ip:port`,
 * IPv6 unbracketed). That header is believed only beside the origin secret CloudFront adds, since anyone
 * can send it straight to API Gateway's own endpoint.
 */
export function clientAddress(
  headers: Record<string, string | undefined> | undefined,
  sourceIp: string,
  secret: string | undefined,
): string {
  const presented = headers?.[ORIGIN_VERIFY_HEADER];
  const viewer = headers?.['cloudfront-viewer-address'];
  if (!secret || !presented || !viewer || !sameSecret(presented, secret)) return sourceIp;
  const ip = viewer.slice(0, viewer.lastIndexOf(':'));
  return isIP(ip) ? ip : sourceIp;
}
