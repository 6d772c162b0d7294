import { request } from 'node:http';
import { beforeEach } from 'vitest';
import { generate } from 'otplib';
import type { Client } from './http.ts';

/** Helpers for sign-in security tests, and the clocks tests hand their stack. */

/**
 * A clock for the test file's stack (`useTestStack(env, { clock })`): frozen at the real time at the
 * start of each test; `advance` moves it.
 */
export function frozenClock() {
  let at = Date.now();
  const clock = {
    now: () => new Date(at),
    advance(ms: number) {
      at += ms;
    },
  };
  beforeEach(() => {
    at = Date.now();
  });
  return clock;
}

/**
 * A clock for the test file's stack that runs with real time, shifted by what `advance` added (back,
 * with a negative number), until `reset`: for tests that need time to have passed, or a moment the
 * wall clock cannot be asked to wait for, while the entries they write keep distinct, ordered times.
 */
export function runningClock() {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advance(ms: number) {
      offset += ms;
    },
    reset() {
      offset = 0;
    },
  };
}

/** The six-digit code an authenticator app shows for `secret` at `at`. */
export const totpCode = (secret: string, at: Date) => generate({ secret, epoch: Math.floor(at.getTime() / 1000) });

/** Provisions and enrols an authenticator for the signed-in account; returns its secret. */
export async function enrolAuthenticator(api: Client, token: string, at: Date, name = 'Phone'): Promise<string> {
  const { body } = await api.post('/auth/totp/provision', undefined, { token });
  const res = await api.post(
    '/auth/totp/verify',
    { secret: body.secret, code: await totpCode(body.secret, at), name },
    { token },
  );
  if (res.status !== 204) throw new Error(`enrolment failed: ${res.status} ${res.text}`);
  return body.secret as string;
}

/**
 * A request from a chosen loopback source address (127.0.0.2, ...): the local server takes the
 * source IP from the socket, so this is how a test looks like another client. `headers` add to
 * the JSON content type (a `user-agent` makes it look like another device).
 */
export function requestFrom(
  localAddress: string,
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const url = new URL(path, baseUrl);
  const payload = body === undefined ? '' : JSON.stringify(body);
  const sent: Record<string, string | number> = { ...headers, 'content-length': Buffer.byteLength(payload) };
  if (body !== undefined) sent['content-type'] = 'application/json';
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }>(
    (resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: url.port, path: url.pathname + url.search, method, localAddress, headers: sent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    },
  );
}

/** A JSON POST from a chosen loopback source address (see `requestFrom`). */
export const postFrom = (
  localAddress: string,
  baseUrl: string,
  path: string,
  body: unknown,
  headers?: Record<string, string>,
) => requestFrom(localAddress, baseUrl, 'POST', path, body, headers);

/** Signs in; answers the raw response (tests look at status and detail). */
export const login = (api: Client, email: string, password: string, totp_code?: string) =>
  api.post('/auth/login', { email, password, ...(totp_code === undefined ? {} : { totp_code }) });
