import { Resolver } from 'node:dns/promises';
import type { Config } from '#shared/config';

/**
 * The TXT records of `name`, each record's strings joined (RFC 7208 style). The system's resolver
 * unless `SSO_DNS_SERVERS` names others (`host:port,...`): then only those are asked.
 * A name with no TXT record, one that does not exist, or servers that do not answer: [].
 */
export async function txtRecords(name: string, config: Config): Promise<string[]> {
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  const servers = config.SSO_DNS_SERVERS.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (servers.length) resolver.setServers(servers);
  try {
    return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
  } catch {
    // no record, no such name, or no answer from the servers: the challenge is not met (the 422 names the record)
    return [];
  }
}
