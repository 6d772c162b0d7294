import type { DomainError, ErrorKind } from '#shared/errors';
import type { Reply } from './route.ts';

/** The one place a refusal's kind becomes an HTTP status. */
const STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  unsupported_media_type: 415,
  unprocessable: 422,
  locked: 423,
  rate_limited: 429,
};

/** A refusal as the client sees it: `{detail, ...extra}` with its status and headers. */
export function refusalReply(err: DomainError): Reply {
  const headers: Record<string, string> = {};
  if (err.kind === 'unauthenticated') headers['www-authenticate'] = 'Bearer';
  if (err.retryAfterSeconds !== undefined) headers['retry-after'] = String(err.retryAfterSeconds);
  return { status: STATUS[err.kind], body: { detail: err.detail, ...err.extra }, headers };
}
