import { cookiesSecure, type Config } from '#shared/config';
import type { Reply } from './route.ts';

export const ACCESS_COOKIE = 'access_token';
export const REFRESH_COOKIE = 'refresh_token';

function cookie(name: string, value: string, maxAgeSeconds: number): string {
  const parts = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`];
  if (cookiesSecure()) parts.push('Secure');
  return parts.join('; ');
}

export const setCookie = (name: string, value: string, maxAgeSeconds: number) =>
  cookie(name, encodeURIComponent(value), maxAgeSeconds);
export const clearCookie = (name: string) => cookie(name, '', 0);

/** API Gateway v2 hands cookies over as `name=value` strings. */
export function parseCookies(list: string[] | undefined, header?: string): Record<string, string> {
  const out: Record<string, string> = {};
  const pairs = list ?? (header ? header.split(';') : []);
  for (const pair of pairs) {
    const i = pair.indexOf('=');
    if (i < 0) continue;
    const name = pair.slice(0, i).trim();
    if (!name || name in out) continue;
    try {
      out[name] = decodeURIComponent(pair.slice(i + 1).trim());
    } catch {
      out[name] = pair.slice(i + 1).trim();
    }
  }
  return out;
}

/** A signed-in answer: the token pair in the body (with `extra` fields) and as the two cookies. */
export function signedIn(
  tokens: { access_token: string; refresh_token: string },
  config: Pick<Config, 'ACCESS_TOKEN_TTL_SECONDS' | 'REFRESH_TOKEN_TTL_DAYS'>,
  extra: object = {},
): Reply {
  return {
    status: 200,
    body: { ...extra, ...tokens },
    cookies: [
      setCookie(ACCESS_COOKIE, tokens.access_token, config.ACCESS_TOKEN_TTL_SECONDS),
      setCookie(REFRESH_COOKIE, tokens.refresh_token, config.REFRESH_TOKEN_TTL_DAYS * 86_400),
    ],
  };
}
