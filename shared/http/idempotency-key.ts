import { unprocessable } from '#shared/errors';
import type { AuthLevel, Route, RouteRequest } from './route.ts';

/** The header a client sends to make a POST safe to retry (shared/http/idempotency.ts does the rest). */
export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** The issue of a header that was sent but cannot be used, for the 422's `detail`. */
export const keyIssue = (msg: string, type: string) => ({ loc: ['header', IDEMPOTENCY_HEADER], msg, type });

/**
 * The `Idempotency-Key` a signed-in caller sent with a POST, or undefined when the request has none
 * (then nothing more is read or written). 1 to 255 visible ASCII characters, else 422.
 */
export function idempotencyKeyOf(
  route: Route,
  request: RouteRequest<unknown, unknown, unknown, AuthLevel>,
): string | undefined {
  const key = request.headers[IDEMPOTENCY_HEADER];
  if (key === undefined || route.method !== 'POST' || !request.principal) return undefined;
  if (!/^[\x21-\x7e]{1,255}$/.test(key))
    throw unprocessable([keyIssue('Idempotency-Key must be 1 to 255 visible ASCII characters', 'value_error')]);
  return key;
}
