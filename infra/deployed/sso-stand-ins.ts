import { join } from 'node:path';
import { startDnsStandIn, type DnsStandIn } from '../local/dns-stand-in.ts';
import { startLocalIdp, type IdpUser, type LocalIdp } from '../local/idp.ts';

/** The development IdP's port when free (a stable issuer across restarts, so a saved connection keeps working); any port otherwise. */
const IDP_PORT = 3100;

/**
 * start:deployed's single sign-on stand-ins, as `npm start` has them. The DNS stand-in starts before
 * the functions: its address reaches them in `env` as SSO_DNS_SERVERS (a tester override), with
 * SSO_ALLOWED_ADDRESSES 127.0.0.1 (the development IdP) unless set; when SSO_DNS_SERVERS is set
 * already, the product asks only those servers and none is started. Its records come from
 * `<dataDir>/dns-records.json` and from `set`.
 */
export async function startSsoDns(
  dataDir: string,
  env: Record<string, string | undefined>,
): Promise<DnsStandIn | undefined> {
  env.SSO_ALLOWED_ADDRESSES ??= '127.0.0.1';
  if (env.SSO_DNS_SERVERS) return undefined;
  const dns = await startDnsStandIn({ recordsFile: join(dataDir, 'dns-records.json') });
  env.SSO_DNS_SERVERS = dns.server;
  return dns;
}

/**
 * The development IdP (oidc-provider, with its ready-made user unless `users` says otherwise), its client
 * registered for the site's callback: started once the site's address is known.
 */
export async function startSsoIdp(
  siteUrl: string,
  opts: { port?: number; users?: Record<string, IdpUser> } = {},
): Promise<LocalIdp> {
  const redirectUris = [`${siteUrl.replace(/\/$/, '')}/auth/sso/callback`];
  const port = opts.port ?? IDP_PORT;
  return startLocalIdp({ redirectUris, port, users: opts.users }).catch(() =>
    startLocalIdp({ redirectUris, users: opts.users }),
  );
}
