import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Client } from './http.ts';
import type { DnsStandIn } from '../../infra/local/dns-stand-in.ts';
import { throughIdp } from './idp-browser.ts';

export const randomDomain = () => `corp-${randomBytes(4).toString('hex')}.test`;

/** A connection to `idp` with `domains`, each verified through the DNS stand-in (unless `unverified`). */
export async function connect(
  api: Client,
  token: string,
  projectId: string,
  idp: { issuer: string; clientId: string; clientSecret: string },
  dns: DnsStandIn,
  domains: string[],
  extra: Record<string, unknown> = {},
  unverified: string[] = [],
) {
  const put = await api.put(
    `/projects/${projectId}/sso`,
    {
      issuer: idp.issuer,
      client_id: idp.clientId,
      client_secret: idp.clientSecret,
      domains,
      required: false,
      jit_role: null,
      ...extra,
    },
    { token },
  );
  expect(put.status, put.text).toBe(200);
  for (const d of put.body.domains as { domain: string; txt_name: string; txt_value: string }[]) {
    if (unverified.includes(d.domain)) continue;
    dns.set(d.txt_name, [d.txt_value]);
    const v = await api.post(`/projects/${projectId}/sso/domains/${d.domain}/verify`, undefined, { token });
    expect(v.status, v.text).toBe(200);
  }
  return put.body;
}

/** The whole browser side of a sign-in: start, the IdP, the callback. Answers the callback's response. */
export async function ssoFlow(
  api: Client,
  baseUrl: string,
  opts: { email: string; sub: string; returnTo?: string; startUrl?: string; otherBrowser?: boolean },
) {
  let authorizationUrl = opts.startUrl;
  let cookie: string | undefined;
  if (!authorizationUrl) {
    const start = await api.get(
      `/auth/sso/start?${new URLSearchParams({ email: opts.email, return_to: opts.returnTo ?? `${baseUrl}/signed-in` })}`,
    );
    expect(start.status, start.text).toBe(302);
    authorizationUrl = start.headers.get('location')!;
    // the browser keeps the binding cookie the start set (another browser has none)
    cookie = opts.otherBrowser ? undefined : bindingCookie(start.cookies);
  }
  const callback = await throughIdp(authorizationUrl, opts.sub, `${baseUrl}/auth/sso/callback`);
  const path = callback.slice(baseUrl.length);
  const res = await api.get(path, { cookie });
  return {
    res,
    callbackPath: path,
    cookie,
    loginCode: res.status === 302 ? new URL(res.headers.get('location')!).searchParams.get('login_code') : null,
  };
}

/** The `sso_binding` cookie of a start's answer, as a Cookie header. */
export const bindingCookie = (setCookies: string[]) =>
  setCookies.map((c) => c.split(';')[0]).find((c) => c.startsWith('sso_binding='));
