import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkTarget } from '#domain/webhooks';
import { isRefusal, unprocessable } from '#shared/errors';
import type { Config } from '#shared/config';

/**
 * Every call to an identity provider (discovery, JWKS, token endpoint) goes through here: the
 * webhooks' address rule (`checkTarget`: public unicast only, https only) with SSO's own allowlist
 * (`SSO_ALLOWED_ADDRESSES`, where plain http is allowed too), the connection pinned to the address
 * that was checked, no redirect followed, a deadline and a size cap on the answer. It is the
 * `customFetch` handed to openid-client, so the library never opens a connection of its own.
 */

const TIMEOUT_MS = 10_000;
const BODY_CAP = 512 * 1024;

export const IDP_ADDRESS_REFUSED =
  'The identity provider must be an https address whose host resolves only to public addresses';

interface FetchOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: URLSearchParams | string | null;
  signal?: AbortSignal | null;
}

/** A fetch for openid-client's `customFetch`: address-checked, pinned, no redirects. */
export function guardedFetch(config: Config) {
  return async (raw: string, options: FetchOptions = {}): Promise<Response> => {
    let target: Awaited<ReturnType<typeof checkTarget>>;
    try {
      target = await checkTarget(raw, config, config.SSO_ALLOWED_ADDRESSES);
    } catch (err) {
      if (isRefusal(err, 'invalid')) throw new AddressRefused(raw);
      throw err;
    }
    const pinned: LookupFunction = (_host, opts, cb) => {
      if ((opts as { all?: boolean }).all)
        (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
          { address: target.address, family: target.family },
        ]);
      else cb(null, target.address, target.family);
    };
    const body = options.body == null ? undefined : String(options.body);
    const send = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Response>((resolve, reject) => {
      const req = send(
        target.url,
        {
          method: options.method ?? 'GET',
          lookup: pinned,
          headers: {
            ...options.headers,
            ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > BODY_CAP) req.destroy(new Error('identity provider answer too large'));
            else chunks.push(c);
          });
          res.on('end', () => {
            const headers = new Headers();
            for (const [k, v] of Object.entries(res.headers))
              if (v !== undefined) for (const one of [v].flat()) headers.append(k, one);
            const status = res.statusCode ?? 502;
            resolve(
              new Response([101, 204, 205, 304].includes(status) ? null : Buffer.concat(chunks), { status, headers }),
            );
          });
          res.on('error', reject);
        },
      );
      const deadline = setTimeout(
        () => req.destroy(new Error(`identity provider gave no answer within ${TIMEOUT_MS / 1000} s`)),
        TIMEOUT_MS,
      );
      req.on('close', () => clearTimeout(deadline));
      req.on('error', reject);
      options.signal?.addEventListener('abort', () => req.destroy(new Error('aborted')));
      req.end(body);
    });
  };
}

/** An identity provider address the rule refuses (told apart from the provider's own failures). */
export class AddressRefused extends Error {
  readonly url: string;

  constructor(url: string) {
    super(`${IDP_ADDRESS_REFUSED}: ${url}`);
    this.url = url;
  }
}

/** 422 on the `issuer` field with what was wrong. */
export const badIssuer = (msg: string) => unprocessable([{ loc: ['body', 'issuer'], msg, type: 'value_error' }]);
