import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import dns2 from 'dns2';

/**
 * The DNS stand-in: a UDP server on 127.0.0.1 that answers TXT questions from its own
 * records, so a domain's single sign-on challenge can be met on one machine. Records come from
 * `set` (tests) and from a JSON file `{ "<name>": ["<value>", …] }` read at every question (`npm
 * start`: LOCAL_DATA_DIR/dns-records.json, edited by hand).
 * Any other question gets an empty answer. The product asks it only through SSO_DNS_SERVERS.
 */
export interface DnsStandIn {
  /** `127.0.0.1:<port>`, the value for SSO_DNS_SERVERS. */
  server: string;
  set(name: string, values: string[]): void;
  stop(): Promise<void>;
}

export async function startDnsStandIn(opts: { port?: number; recordsFile?: string } = {}): Promise<DnsStandIn> {
  const records = new Map<string, string[]>();
  const fromFile = async (): Promise<Record<string, string[]>> => {
    if (!opts.recordsFile) return {};
    try {
      return JSON.parse(await readFile(opts.recordsFile, 'utf8')) as Record<string, string[]>;
    } catch {
      return {};
    }
  };
  const { Packet } = dns2;
  const udp = dns2.createUDPServer(async (request, send) => {
    const response = Packet.createResponseFromRequest(request);
    const [question] = request.questions;
    if (question && question.type === Packet.TYPE.TXT) {
      const name = question.name.toLowerCase().replace(/\.$/, '');
      const values = records.get(name) ?? (await fromFile())[name] ?? [];
      for (const value of values)
        response.answers.push({
          name: question.name,
          type: Packet.TYPE.TXT,
          class: Packet.CLASS.IN,
          ttl: 1,
          data: value,
        } as never);
    }
    await send(response);
  });
  await udp.listen(opts.port ?? 0, '127.0.0.1');
  const { port } = udp.address() as AddressInfo;
  return {
    server: `127.0.0.1:${port}`,
    set: (name, values) => void records.set(name.toLowerCase(), values),
    stop: () => new Promise<void>((resolve) => udp.close(() => resolve())),
  };
}
