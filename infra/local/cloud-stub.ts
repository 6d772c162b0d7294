import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { outlastClientIdle } from './keep-alive.ts';

/** A Hetzner Cloud server in the API's recorded shape (the fields discovery reads, and some it ignores). */
export function hetznerServer(id: number, name: string, over: Record<string, unknown> = {}) {
  return {
    id,
    name,
    status: 'running',
    created: '2026-01-01T00:00:00+00:00',
    public_net: {
      ipv4: { ip: `203.0.113.${id % 250}`, blocked: false, dns_ptr: `static.${id}.example` },
      ipv6: { ip: '2001:db8::/64', blocked: false },
      floating_ips: [],
    },
    private_net: [{ network: 1, ip: `10.0.0.${id % 250}`, alias_ips: [], mac_address: '86:00:00:00:00:01' }],
    server_type: {
      id: 1,
      name: 'cx22',
      description: 'CX22',
      cores: 2,
      memory: 4.0,
      disk: 40,
      deprecated: false,
      storage_type: 'local',
      cpu_type: 'shared',
    },
    datacenter: {
      id: 4,
      name: 'fsn1-dc14',
      description: 'Falkenstein 1 DC14',
      location: { id: 1, name: 'fsn1', city: 'Falkenstein', country: 'DE' },
    },
    image: { id: 1, name: 'ubuntu-24.04' },
    labels: { team: 'payments' },
    volumes: [],
    protection: { delete: false, rebuild: false },
    ...over,
  };
}

/** A DigitalOcean droplet in the API's recorded shape. */
export function droplet(id: number, name: string, over: Record<string, unknown> = {}) {
  return {
    id,
    name,
    memory: 2048,
    vcpus: 2,
    disk: 50,
    locked: false,
    status: 'active',
    created_at: '2026-01-01T00:00:00Z',
    region: { slug: 'ams3', name: 'Amsterdam 3', available: true },
    networks: {
      v4: [
        { ip_address: `10.110.0.${id % 250}`, netmask: '255.255.240.0', gateway: '', type: 'private' },
        { ip_address: `198.51.100.${id % 250}`, netmask: '255.255.240.0', gateway: '198.51.100.1', type: 'public' },
      ],
      v6: [],
    },
    size_slug: 's-2vcpu-2gb',
    tags: ['web', 'env:prod'],
    vpc_uuid: 'f9b0769c-e118-42fb-a0c4-fed15ef69662',
    ...over,
  };
}

/**
 * A stub of the two token providers on 127.0.0.1: `/hetzner/v1/servers` and `/do/v2/droplets`
 * (+ `/do/v2/account`), paged at `pageSize` whatever the client asks (as real APIs cap per_page).
 * Only `token` is accepted; every request is recorded.
 */
export class CloudStub {
  token = `stub-token-${Math.random().toString(36).slice(2)}`;
  hetzner: ReturnType<typeof hetznerServer>[] = [];
  droplets: ReturnType<typeof droplet>[] = [];
  pageSize = 2;
  /** Answer 500 for these page numbers (to simulate a listing that fails half-way). */
  failPages = new Set<number>();
  requests: { path: string; authorization?: string }[] = [];
  private server?: Server;
  url = '';

  async start(port = 0) {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      this.requests.push({ path: url.pathname + url.search, authorization: req.headers.authorization });
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.headers.authorization !== `Bearer ${this.token}`)
        return send(401, { error: { code: 'unauthorized', message: 'unable to authenticate' } });
      const page = Number(url.searchParams.get('page') ?? '1');
      if (this.failPages.has(page)) return send(500, { error: { code: 'server_error' } });
      const per = Math.min(Number(url.searchParams.get('per_page') ?? '25'), this.pageSize);
      const slice = <T>(all: T[]) => ({
        items: all.slice((page - 1) * per, page * per),
        last: Math.max(1, Math.ceil(all.length / per)),
      });
      if (url.pathname === '/hetzner/v1/servers') {
        const { items, last } = slice(this.hetzner);
        return send(200, {
          servers: items,
          meta: {
            pagination: {
              page,
              per_page: per,
              previous_page: page > 1 ? page - 1 : null,
              next_page: page < last ? page + 1 : null,
              last_page: last,
              total_entries: this.hetzner.length,
            },
          },
        });
      }
      if (url.pathname === '/do/v2/droplets') {
        const { items, last } = slice(this.droplets);
        const base = `${this.url}/do/v2/droplets?per_page=${per}`;
        return send(200, {
          droplets: items,
          links: { pages: page < last ? { next: `${base}&page=${page + 1}`, last: `${base}&page=${last}` } : {} },
          meta: { total: this.droplets.length },
        });
      }
      if (url.pathname === '/do/v2/account')
        return send(200, { account: { uuid: 'a1', email: 'ops@example.com', status: 'active' } });
      return send(404, { error: { code: 'not_found' } });
    });
    outlastClientIdle(this.server);
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async stop() {
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

/**
 * `npx tsx infra/local/cloud-stub.ts`: a stub for `npm start` to discover from (see the README),
 * on 127.0.0.1:CLOUD_STUB_PORT (4010) with token CLOUD_STUB_TOKEN ('local-stub-token') and a few servers.
 */
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const stub = new CloudStub();
  stub.token = process.env.CLOUD_STUB_TOKEN ?? 'local-stub-token';
  stub.hetzner = [hetznerServer(1, 'web-1'), hetznerServer(2, 'web-2'), hetznerServer(3, 'db-1')];
  stub.droplets = [droplet(11, 'app-1'), droplet(12, 'app-2')];
  await stub.start(Number(process.env.CLOUD_STUB_PORT ?? 4010));
  process.stdout.write(
    `cloud stub on ${stub.url}\nHETZNER_API_BASE_URL=${stub.url}/hetzner/v1 DIGITALOCEAN_API_BASE_URL=${stub.url}/do/v2 npm start\n`,
  );
}
