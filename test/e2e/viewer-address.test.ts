import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, uniqueEmail } from '../helpers/http.ts';

/**
 * Behind the site's CloudFront distribution the API sees an edge's address; the viewer's is in
 * `CloudFront-Viewer-Address`, believed only with the origin secret CloudFront adds (infra/cdk/web-hosting.ts).
 * What a user sees: the security log and the per-address sign-in limits name their own address.
 */
const SECRET = 'origin-verify-secret-for-tests-0123456789';
const ref = useTestStack({ ORIGIN_VERIFY_SECRET: SECRET });
const api = client(() => ref.stack.url);

async function signInAddress(headers: Record<string, string>) {
  const email = uniqueEmail('viewer');
  expect((await api.post('/auth/register', { email, password: PASSWORD })).status).toBe(201);
  const res = await api.post('/auth/login', { email, password: PASSWORD }, { headers });
  expect(res.status).toBe(200);
  const log = await api.get('/auth/me/security-log', { token: res.body.access_token });
  expect(log.status).toBe(200);
  return log.body.find((e: { event: string }) => e.event === 'sign_in.succeeded')?.source_ip as string;
}

describe('the caller address behind CloudFront', () => {
  it('is the viewer address when the request carries the origin secret (IPv4 and IPv6)', async () => {
    expect(await signInAddress({ 'x-origin-verify': SECRET, 'cloudfront-viewer-address': '203.0.113.9:51234' })).toBe(
      '203.0.113.9',
    );
    expect(await signInAddress({ 'x-origin-verify': SECRET, 'cloudfront-viewer-address': '2001:db8::7:443' })).toBe(
      '2001:db8::7',
    );
  });

  it('ignores a viewer address sent without the secret, with a wrong one, or malformed', async () => {
    const direct = await signInAddress({});
    expect(direct).not.toBe('203.0.113.9');
    const forged: Record<string, string>[] = [
      { 'cloudfront-viewer-address': '203.0.113.9:443' },
      { 'x-origin-verify': `${SECRET}x`, 'cloudfront-viewer-address': '203.0.113.9:443' },
      { 'x-origin-verify': SECRET, 'cloudfront-viewer-address': 'not-an-address' },
    ];
    for (const headers of forged) expect(await signInAddress(headers)).toBe(direct);
  });
});
