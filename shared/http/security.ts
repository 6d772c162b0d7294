import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { config, type Config } from '#shared/config';
import { forbidden, unsupportedMediaType } from '#shared/errors';
import { ACCESS_COOKIE, REFRESH_COOKIE, parseCookies } from './cookies.ts';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;

/**
 * Cross-site request protection and the security headers of every answer (docs/decisions/
 * 0049-malformed-percent-escapes-cross-site-requests-and-security.md). Both are HTTP concerns only: they read headers, never stored data.
 */

export const ORIGIN_NOT_ALLOWED = 'Origin not allowed';
export const JSON_REQUIRED = 'Unsupported media type: send application/json';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** `application/json` or any `application/<x>+json`, with optional parameters (`; charset=utf-8`). */
const JSON_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

const originOf = (url: string): string | undefined => {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
};

/** The origins whose pages may send cookie-authenticated writes: APP_BASE_URL's and ALLOWED_ORIGINS. */
export function allowedOrigins(c: Config = config()): Set<string> {
  return new Set([c.APP_BASE_URL, ...c.ALLOWED_ORIGINS].map(originOf).filter((o): o is string => !!o));
}

/**
 * A state-changing request authenticated by cookie (no Authorization header, an `access_token` or
 * `refresh_token` cookie) is refused when it comes from a page of another origin (403) or its body
 * is anything but JSON (415): forms and `text/plain` are what a foreign page can send without a
 * CORS preflight. Requests with an Authorization header (Bearer) are never affected.
 */
export function checkCrossSite(event: Event, c: Config = config()): void {
  if (!STATE_CHANGING.has(event.requestContext.http.method.toUpperCase())) return;
  const headers = event.headers ?? {};
  if (headers.authorization) return; // the token is then the header's (an empty header falls back to the cookie, so it does not count)
  const cookies = parseCookies(event.cookies, headers.cookie);
  if (!cookies[ACCESS_COOKIE] && !cookies[REFRESH_COOKIE]) return;
  const origin = headers.origin;
  if (origin !== undefined) {
    const normalized = originOf(origin.trim());
    if (!normalized || !allowedOrigins(c).has(normalized)) throw forbidden(ORIGIN_NOT_ALLOWED);
  }
  const type = headers['content-type']?.trim();
  const hasBody = !!event.body;
  if (type ? !JSON_TYPE.test(type) : hasBody) throw unsupportedMediaType(JSON_REQUIRED);
}

/** Runs before the body is parsed, so a form or text body is a 415 rather than a JSON decode error. */
export const crossSiteGuard = (): MiddlewareObj<Event, Result> => ({
  before: async (request) => checkCrossSite(request.event),
});

export const HSTS = 'max-age=31536000; includeSubDomains';

/** Headers every answer carries; HSTS only when the app is served over https. */
export function securityHeaders(c: Config = config()): Record<string, string> {
  return {
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    ...(c.APP_BASE_URL.toLowerCase().startsWith('https://') ? { 'strict-transport-security': HSTS } : {}),
  };
}

/**
 * An answer with the security headers. `authenticated` (a route that is not public) forces
 * `Cache-Control: no-store`, whatever the route set; a public route may set its own (the API document).
 */
export function withSecurityHeaders(result: Result, authenticated: boolean): Result {
  const headers: Record<string, string | number | boolean> = { ...result.headers, ...securityHeaders() };
  if (authenticated) headers['cache-control'] = 'no-store';
  return { ...result, headers };
}

/** Outermost: decorates every answer, a success or a refusal (its `after` and `onError` run last). */
export const securityHeadersOnEveryAnswer = (
  isAuthenticated: (event: Event) => boolean,
): MiddlewareObj<Event, Result> => {
  const decorate = async (request: { event: Event; response: Result | undefined | null }) => {
    if (request.response) request.response = withSecurityHeaders(request.response, isAuthenticated(request.event));
  };
  return { after: decorate, onError: decorate };
};
