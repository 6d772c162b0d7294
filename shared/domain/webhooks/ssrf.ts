import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { invalid } from '#shared/errors';
import type { Config } from '#shared/config';
import { isOutage } from '#shared/outage';

/**
 * The SSRF guard. A webhook URL is checked at registration and again at every send: every address
 * its host resolves to must be public unicast (loopback, private, link-local, CGNAT, multicast,
 * IPv4-mapped IPv6, documentation and every other reserved range refused: ipaddr.js's `range()` must
 * be 'unicast' after unmapping), and the connection then goes to the address that was checked (a
 * custom `lookup`), so DNS cannot answer differently between the check and the connect. Only
 * https, except for addresses on the configuration allowlist (`WEBHOOK_ALLOWED_ADDRESSES`, empty by
 * default: local development and tests deliver to 127.0.0.1). No redirect is ever followed.
 */

export const URL_NOT_ALLOWED = 'The webhook URL must be an https URL whose host resolves only to public addresses';

export interface CheckedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

function allowlist(list: string): (addr: ipaddr.IPv4 | ipaddr.IPv6) => boolean {
  const entries = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((e) =>
      e.includes('/')
        ? ipaddr.parseCIDR(e)
        : ([ipaddr.parse(e), ipaddr.parse(e).kind() === 'ipv4' ? 32 : 128] as [ipaddr.IPv4 | ipaddr.IPv6, number]),
    );
  return (addr) => entries.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net, bits));
}

/** Test hook: how host names resolve (the system resolver otherwise). */
let resolver = async (host: string): Promise<{ address: string; family: number }[]> =>
  lookup(host, { all: true, verbatim: true });
export function useResolver(r: typeof resolver | undefined) {
  resolver = r ?? (async (host) => lookup(host, { all: true, verbatim: true }));
}

/**
 * Checks `raw`; answers the address to connect to, or refuses (400) with URL_NOT_ALLOWED.
 * `allowedAddresses`: the allowlist that applies (webhooks' by default; single sign-on passes its own).
 */
export async function checkTarget(
  raw: string,
  config: Config,
  allowedAddresses: string = config.WEBHOOK_ALLOWED_ADDRESSES,
): Promise<CheckedTarget> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(URL_NOT_ALLOWED);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password)
    throw invalid(URL_NOT_ALLOWED);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (ipaddr.isValid(host)) addresses = [host];
  else {
    try {
      addresses = (await resolver(host)).map((a) => a.address);
    } catch (err) {
      // A name that does not resolve is refused; a resolver that failed for now (EAI_AGAIN) is an outage.
      if (isOutage(err)) throw err;
      throw invalid(URL_NOT_ALLOWED);
    }
  }
  if (!addresses.length) throw invalid(URL_NOT_ALLOWED);
  const allowed = allowlist(allowedAddresses);
  const parsed = addresses.map((a) => ipaddr.parse(a));
  for (const addr of parsed) {
    const plain =
      addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()
        ? (addr as ipaddr.IPv6).toIPv4Address()
        : addr;
    // Only the exact form the allowlist names passes: ::ffff:127.0.0.1 is refused even when 127.0.0.1 is allowed.
    if (allowed(addr)) continue;
    if (addr.range() !== 'unicast' || plain.range() !== 'unicast') throw invalid(URL_NOT_ALLOWED);
  }
  if (url.protocol === 'http:' && !parsed.every((a) => allowed(a))) throw invalid(URL_NOT_ALLOWED);
  const first = parsed[0];
  return { url, address: first.toString(), family: first.kind() === 'ipv4' ? 4 : 6 };
}

export interface PostResult {
  /** The HTTP status, or null when no response came (connection refused, timeout, refused target). */
  status: number | null;
  durationMs: number;
  /** The first bytes of the response body (capped), or the error. */
  body: string;
  retryAfterSeconds?: number;
}

const BODY_CAP = 2048;
export const SEND_TIMEOUT_MS = 15_000;

/** POSTs `body` to the checked target, connecting to its checked address; no redirects; the response body read up to a cap. */
export function postTo(
  target: CheckedTarget,
  body: string,
  headers: Record<string, string>,
  opts: { timeoutMs?: number } = {},
): Promise<PostResult> {
  const started = Date.now();
  const pinned: LookupFunction = (_host, options, cb) => {
    if ((options as { all?: boolean }).all)
      (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    else cb(null, target.address, target.family);
  };
  const send = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: Omit<PostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...r, durationMs: Date.now() - started });
    };
    const req = send(
      target.url,
      {
        method: 'POST',
        lookup: pinned,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'infra-catalog-webhooks/1',
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < BODY_CAP) chunks.push(c.subarray(0, BODY_CAP - size));
          size += c.length;
          if (size >= BODY_CAP) res.destroy();
        });
        const finish = () => {
          const ra = res.headers['retry-after'];
          const retryAfterSeconds =
            ra === undefined
              ? undefined
              : /^\d+$/.test(ra)
                ? Number(ra)
                : Math.max(0, Math.ceil((Date.parse(ra) - Date.now()) / 1000)) || undefined;
          done({ status: res.statusCode ?? null, body: Buffer.concat(chunks).toString('utf8'), retryAfterSeconds });
        };
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      },
    );
    // One deadline for the whole attempt: the socket's idle timeout alone never fires for a receiver
    // that drips a byte now and then, which would hold the worker until its own timeout.
    const timeoutMs = opts.timeoutMs ?? SEND_TIMEOUT_MS;
    const deadline = setTimeout(() => req.destroy(new Error(`no response within ${timeoutMs / 1000} s`)), timeoutMs);
    req.on('close', () => clearTimeout(deadline));
    req.on('error', (err) => done({ status: null, body: String(err.message).slice(0, BODY_CAP) }));
    req.end(body);
  });
}
