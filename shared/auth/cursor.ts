import { createHmac, timingSafeEqual } from 'node:crypto';
import { signingKey } from './signing-key.ts';
import { unprocessable } from '#shared/errors';

/**
 * Opaque page cursors (the audit log; the security log pages the same way): the last
 * key of a page, as JSON, and an HMAC over it with the signing key, both base64url. A cursor that
 * was changed in any way decodes to `undefined` (the caller's 422); a valid one is only a position.
 */
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64url');

async function mac(payload: string): Promise<Buffer> {
  return createHmac('sha256', await signingKey())
    .update(`page-cursor:${payload}`)
    .digest()
    .subarray(0, 16);
}

export async function encodeCursor(key: Record<string, unknown>): Promise<string> {
  const payload = b64(JSON.stringify(key));
  return `${payload}.${b64(await mac(payload))}`;
}

export async function decodeCursor(cursor: string): Promise<Record<string, unknown> | undefined> {
  const [payload, sig, ...rest] = cursor.split('.');
  if (!payload || !sig || rest.length) return undefined;
  const given = Buffer.from(sig, 'base64url');
  const expected = await mac(payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const key = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return key && typeof key === 'object' && !Array.isArray(key) ? key : undefined;
  } catch {
    return undefined;
  }
}

export const INVALID_CURSOR = 'Invalid cursor';

/**
 * Where a page starts: the key a cursor stands for, when this service handed it out for partition
 * `pk` (held in `pkAttr`, the index's partition key for an index read); otherwise a 422 on the
 * `cursor` query parameter, so a cursor never moves a read to another partition.
 */
export async function pageStart(
  cursor: string | undefined,
  pk: string,
  pkAttr = 'PK',
): Promise<Record<string, unknown> | undefined> {
  if (cursor === undefined) return undefined;
  const key = await decodeCursor(cursor);
  if (!key || key[pkAttr] !== pk)
    throw unprocessable([{ loc: ['query', 'cursor'], msg: INVALID_CURSOR, type: 'value_error' }]);
  return key;
}
