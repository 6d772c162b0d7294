import { assertDocumented } from './openapi-validator.ts';

/**
 * A small HTTP client for end-to-end tests: real requests against the local server. Every answer is
 * held against openapi.json (an undeclared status or a body off its schema throws: ./openapi-validator).
 */
export interface ApiResponse<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
  cookies: string[];
}

export interface RequestOptions {
  token?: string;
  cookie?: string;
  headers?: Record<string, string>;
  raw?: string;
}

export function client(baseUrl: () => string) {
  async function call<T = any>(
    method: string,
    path: string,
    body?: unknown,
    opts: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    if (body !== undefined || opts.raw !== undefined) headers['content-type'] ??= 'application/json';
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.cookie) headers.cookie = opts.cookie;
    // What the API answers, a redirect included (not where it leads).
    const res = await fetch(baseUrl() + path, {
      method,
      headers,
      body: opts.raw ?? (body === undefined ? undefined : JSON.stringify(body)),
      redirect: 'manual',
    });
    const text = await res.text();
    assertDocumented(method, path, {
      status: res.status,
      contentType: res.headers.get('content-type'),
      text,
      header: (n) => res.headers.get(n),
    });
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: parsed as T, text, headers: res.headers, cookies: res.headers.getSetCookie() };
  }
  return {
    get: <T = any>(path: string, opts?: RequestOptions) => call<T>('GET', path, undefined, opts),
    post: <T = any>(path: string, body?: unknown, opts?: RequestOptions) => call<T>('POST', path, body, opts),
    patch: <T = any>(path: string, body?: unknown, opts?: RequestOptions) => call<T>('PATCH', path, body, opts),
    put: <T = any>(path: string, body?: unknown, opts?: RequestOptions) => call<T>('PUT', path, body, opts),
    delete: <T = any>(path: string, body?: unknown, opts?: RequestOptions) => call<T>('DELETE', path, body, opts),
    call,
  };
}
export type Client = ReturnType<typeof client>;

let counter = 0;
/** A unique address per call, so tests in one file never collide. */
export const uniqueEmail = (prefix = 'user') => `${prefix}-${Date.now().toString(36)}-${counter++}@example.com`;

export const PASSWORD = 'correct horse battery';

/** Registers an account and signs it in; returns its id, address and tokens. */
export async function signUp(api: Client, email = uniqueEmail(), password = PASSWORD) {
  const reg = await api.post('/auth/register', { email, password });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${reg.text}`);
  const login = await api.post('/auth/login', { email, password });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.text}`);
  return {
    id: reg.body.id as string,
    email,
    password,
    token: login.body.access_token as string,
    refresh: login.body.refresh_token as string,
  };
}
