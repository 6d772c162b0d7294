import { afterAll, describe, expect, it } from 'vitest';
import type { Config } from '#shared/config';
import { URL_NOT_ALLOWED, useResolver } from '#domain/webhooks';
import { checkTarget } from '../../shared/domain/webhooks/ssrf.ts';

/** checkTarget reads only the allowlist of the configuration. */
const config = (allowed = '') => ({ WEBHOOK_ALLOWED_ADDRESSES: allowed }) as Config;
const PUBLIC_V4 = '93.184.216.34';

/** Host names resolve from this table (no DNS in a unit test); an unknown name fails to resolve. */
const DNS: Record<string, string[]> = {
  'hooks.example.com': [PUBLIC_V4],
  'rebind.example.com': [PUBLIC_V4, '10.0.0.7'],
  'metadata.example.com': ['169.254.169.254'],
  'empty.example.com': [],
};
useResolver(async (host) => {
  if (host === 'flaky.example.com')
    throw Object.assign(new Error(`getaddrinfo EAI_AGAIN ${host}`), { code: 'EAI_AGAIN' });
  const addresses = DNS[host];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
});
afterAll(() => useResolver(undefined));

const refused = (url: string, allowed = '') =>
  expect(checkTarget(url, config(allowed))).rejects.toMatchObject({ kind: 'invalid', detail: URL_NOT_ALLOWED });

describe('checkTarget (webhooks/ssrf): where a webhook may deliver', () => {
  it.each([
    ['loopback', 'https://127.0.0.1/hook'],
    ['loopback elsewhere in 127/8', 'https://127.8.9.10/hook'],
    ['the cloud metadata address', 'https://169.254.169.254/latest/meta-data/'],
    ['IPv6 loopback', 'https://[::1]/hook'],
    ['the unspecified address', 'https://0.0.0.0/hook'],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/hook'],
    ['IPv4-mapped IPv6 metadata address', 'https://[::ffff:169.254.169.254]/hook'],
    ['loopback in decimal', 'https://2130706433/hook'],
    ['loopback in octal', 'https://0177.0.0.1/hook'],
    ['loopback in hexadecimal', 'https://0x7f.0.0.1/hook'],
    ['loopback in short form', 'https://127.1/hook'],
    ['metadata address in decimal', 'https://2852039166/hook'],
    ['private 10/8', 'https://10.1.2.3/hook'],
    ['private 172.16/12', 'https://172.16.0.1/hook'],
    ['private 192.168/16', 'https://192.168.1.1/hook'],
    ['carrier-grade NAT', 'https://100.64.0.1/hook'],
    ['multicast', 'https://224.0.0.1/hook'],
    ['documentation range', 'https://192.0.2.1/hook'],
    ['IPv6 link-local', 'https://[fe80::1]/hook'],
    ['IPv6 unique local', 'https://[fc00::1]/hook'],
    ['NAT64 of loopback', 'https://[64:ff9b::7f00:1]/hook'],
    ['a name that resolves to the metadata address', 'https://metadata.example.com/hook'],
    ['a name with one private address among public ones', 'https://rebind.example.com/hook'],
    ['a name that resolves to nothing', 'https://empty.example.com/hook'],
    ['a name that does not resolve', 'https://nowhere.example.com/hook'],
    ['plain http to a public address', `http://${PUBLIC_V4}/hook`],
    ['another scheme', `ftp://${PUBLIC_V4}/hook`],
    ['credentials in the URL', `https://user:secret@${PUBLIC_V4}/hook`],
    ['not a URL', 'hooks.example.com/hook'],
  ])('refuses %s (%s)', async (_name, url) => {
    await refused(url);
  });

  it('accepts a public address and pins the connection to it', async () => {
    await expect(checkTarget(`https://${PUBLIC_V4}/hook`, config())).resolves.toMatchObject({
      address: PUBLIC_V4,
      family: 4,
    });
    await expect(checkTarget('https://[2606:4700:4700::1111]/hook', config())).resolves.toMatchObject({
      address: '2606:4700:4700::1111',
      family: 6,
    });
  });

  it('accepts a name that resolves to public addresses only, pinned to the checked address', async () => {
    const target = await checkTarget('https://hooks.example.com/hook?x=1', config());
    expect([target.address, target.family, target.url.href]).toEqual([
      PUBLIC_V4,
      4,
      'https://hooks.example.com/hook?x=1',
    ]);
  });

  it('the allowlist lets exactly the addresses it names through, over http too', async () => {
    await expect(checkTarget('http://127.0.0.1:8080/hook', config('127.0.0.1'))).resolves.toMatchObject({
      address: '127.0.0.1',
    });
    await expect(checkTarget('http://10.1.2.3/hook', config('10.0.0.0/8'))).resolves.toMatchObject({
      address: '10.1.2.3',
    });
    await refused('https://127.0.0.2/hook', '127.0.0.1');
    await refused('https://[::ffff:127.0.0.1]/hook', '127.0.0.1');
    // A public address not on the list keeps the https rule.
    await refused(`http://${PUBLIC_V4}/hook`, '127.0.0.1');
  });

  it('refuses a name that does not resolve, but not a resolver that failed for now (an outage, retried)', async () => {
    await refused('https://nowhere.example.com/hook');
    await expect(checkTarget('https://flaky.example.com/hook', config())).rejects.toMatchObject({ code: 'EAI_AGAIN' });
  });
});
