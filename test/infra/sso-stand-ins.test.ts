import { afterAll, describe, expect, it } from 'vitest';
import { startSsoDns, startSsoIdp } from '../../infra/deployed/sso-stand-ins.ts';
import type { LocalIdp } from '../../infra/local/idp.ts';

/**
 * start:deployed's single sign-on stand-ins, as `npm start` has them: the DNS stand-in named to the
 * functions through the environment (none started when SSO_DNS_SERVERS names servers), and the
 * development IdP on its usual port, or on any other when that one is taken (a second run beside the first).
 */
const started: { stop(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
});

describe('the SSO stand-ins of start:deployed', () => {
  it('the DNS stand-in is named in the environment it is given, with the IdP allowed; none when SSO_DNS_SERVERS is set', async () => {
    const env: Record<string, string | undefined> = {};
    const dns = await startSsoDns('/nonexistent', env);
    started.push(dns!);
    expect(env).toEqual({ SSO_DNS_SERVERS: dns!.server, SSO_ALLOWED_ADDRESSES: '127.0.0.1' });
    const given: Record<string, string | undefined> = { SSO_DNS_SERVERS: '10.0.0.2:53', SSO_ALLOWED_ADDRESSES: '' };
    expect(await startSsoDns('/nonexistent', given)).toBeUndefined();
    expect(given).toEqual({ SSO_DNS_SERVERS: '10.0.0.2:53', SSO_ALLOWED_ADDRESSES: '' });
  });

  it('the development IdP takes another port when its own is taken, and serves its discovery document there', async () => {
    const first: LocalIdp = await startSsoIdp('http://localhost:3000', { port: 0 });
    started.push(first);
    const port = Number(new URL(first.issuer).port);
    const second = await startSsoIdp('http://localhost:3001/', { port });
    started.push(second);
    expect(second.issuer).not.toBe(first.issuer);
    const discovery = (await (await fetch(`${second.issuer}/.well-known/openid-configuration`)).json()) as {
      issuer: string;
    };
    expect(discovery.issuer).toBe(second.issuer);
  });
});
