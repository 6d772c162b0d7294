import { createHmac, timingSafeEqual } from 'node:crypto';
import { signingKey } from '#auth/signing-key';
import { forbidden, gone } from '#shared/errors';

export const LINK_EXPIRED = 'Link expired';
export const INVALID_SIGNATURE = 'Invalid signature';

/** The signature of a download link: HMAC-SHA256 over the record id and the expiry, with a key derived from the token signing key. */
async function signature(recordId: string, exp: number): Promise<Buffer> {
  const key = createHmac('sha256', await signingKey())
    .update('impex-download-link')
    .digest();
  return createHmac('sha256', key).update(`${recordId}.${exp}`).digest();
}

/** A download link for `recordId` valid until `expiresAt`. */
export async function signedDownloadUrl(apiBaseUrl: string, recordId: string, expiresAt: Date): Promise<string> {
  const exp = Math.floor(expiresAt.getTime() / 1000);
  return `${apiBaseUrl.replace(/\/$/, '')}/impex/download/${recordId}?exp=${exp}&sig=${(await signature(recordId, exp)).toString('hex')}`;
}

/** Checks a link: a signature that does not match (any tampering, expiry included) is 403; a genuine link past `exp` is 410. */
export async function verifyDownloadLink(recordId: string, exp: number, sig: string, now: Date): Promise<void> {
  const given = /^[0-9a-f]{64}$/.test(sig) ? Buffer.from(sig, 'hex') : Buffer.alloc(0);
  const expected = await signature(recordId, exp);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw forbidden(INVALID_SIGNATURE);
  if (Math.floor(now.getTime() / 1000) > exp) throw gone(LINK_EXPIRED);
}
