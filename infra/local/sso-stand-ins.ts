import { join } from 'node:path';
import type { Config } from '#shared/config';
import { startDnsStandIn, type DnsStandIn } from './dns-stand-in.ts';
import { READY_MADE_USER, startLocalIdp, type LocalIdp } from './idp.ts';

/** The local IdP's port when free (a stable issuer across restarts, so a saved connection keeps working); any port otherwise. */
const IDP_PORT = 3100;

/**
 * `npm start`'s DNS stand-in, unless SSO_DNS_SERVERS names servers already (then the product asks only
 * those and nothing is started). Its records come from LOCAL_DATA_DIR/dns-records.json. Sets
 * SSO_DNS_SERVERS, and SSO_ALLOWED_ADDRESSES to 127.0.0.1 (the local IdP) unless set, in `env`.
 */
export async function startDnsForLocal(c: Config, env: Record<string, string>): Promise<DnsStandIn | undefined> {
  if (!process.env.SSO_ALLOWED_ADDRESSES) env.SSO_ALLOWED_ADDRESSES = '127.0.0.1';
  if (c.SSO_DNS_SERVERS) return undefined;
  const dns = await startDnsStandIn({ recordsFile: join(c.LOCAL_DATA_DIR, 'dns-records.json') });
  env.SSO_DNS_SERVERS = dns.server;
  return dns;
}

/** The development IdP with its ready-made user, its client registered for this stack's callback. */
export async function startIdpForLocal(
  url: string,
  c: Config,
  dns: DnsStandIn | undefined,
  say: (line: string) => void,
): Promise<LocalIdp> {
  const redirectUris = [`${url}/auth/sso/callback`, `${c.API_BASE_URL.replace(/\/$/, '')}/auth/sso/callback`];
  const idp = await startLocalIdp({ redirectUris, port: IDP_PORT }).catch(() => startLocalIdp({ redirectUris }));
  say(
    `  Identity provider (SSO): ${idp.issuer}  client_id ${idp.clientId}  client_secret ${idp.clientSecret}  user ${READY_MADE_USER.email}`,
  );
  if (dns) say(`  DNS stand-in: ${dns.server} (TXT records in ${c.LOCAL_DATA_DIR}/dns-records.json)`);
  return idp;
}
