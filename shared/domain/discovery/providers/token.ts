import { isIP } from 'node:net';
import { config } from '#shared/config';
import { log } from '#shared/log';
import {
  ALL_REGIONS,
  floorTags,
  ProviderRefusal,
  type DiscoveredInstance,
  type Listing,
  type ProviderAccount,
  type ProviderAdapter,
} from './types.ts';

/**
 * The token providers over plain REST (fetch): Hetzner Cloud (`/servers`, page/per_page with
 * `meta.pagination.next_page`) and DigitalOcean (`/droplets`, page/per_page with `links.pages.next`).
 * Base URLs come from the configuration (a stub locally). The token travels only in the
 * Authorization header; errors say the status, never the body or the token.
 */

const PER_PAGE = 50;
/** A guard against a provider that never stops paging (50,000 servers). */
const MAX_PAGES = 1000;
const TIMEOUT_MS = 15_000;

async function getJson(url: string, token: string): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    throw new Error(`The provider could not be reached (${(err as Error).name}).`);
  }
  // The URL carries no secret (the token is in the header, which is never logged).
  log.debug('provider request', { url, status: res.status });
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel();
    throw new ProviderRefusal(`The provider refused the API token (${res.status}).`);
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`The provider answered ${res.status}.`);
  }
  return res.json();
}

const ips = (list: (string | undefined | null)[]) =>
  [...new Set(list.filter((ip): ip is string => Boolean(ip && isIP(ip))))].slice(0, 64);
const int = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.round(n) : null);

interface HetznerServer {
  id: number;
  name?: string;
  public_net?: { ipv4?: { ip?: string } | null; ipv6?: { ip?: string } | null };
  private_net?: { ip?: string }[];
  server_type?: { cores?: number; memory?: number; disk?: number };
  datacenter?: { name?: string; location?: { name?: string } };
  labels?: Record<string, string>;
}

function fromHetzner(s: HetznerServer): DiscoveredInstance {
  const all = ips([s.public_net?.ipv4?.ip, ...(s.private_net ?? []).map((p) => p.ip), s.public_net?.ipv6?.ip]);
  return {
    instance_id: String(s.id),
    hostname: (s.name || String(s.id)).slice(0, 253),
    region: s.datacenter?.location?.name ?? null,
    zone: s.datacenter?.name ?? null,
    ip_address: all[0] ?? null,
    ip_addresses: all,
    cpu: int(s.server_type?.cores),
    memory_mb: typeof s.server_type?.memory === 'number' ? Math.round(s.server_type.memory * 1024) : null,
    storage_gb: int(s.server_type?.disk),
    tags: floorTags(Object.entries(s.labels ?? {}).map(([k, v]) => (v ? `${k}=${v}` : k))),
  };
}

interface Droplet {
  id: number;
  name?: string;
  vcpus?: number;
  memory?: number;
  disk?: number;
  region?: { slug?: string };
  networks?: { v4?: { ip_address?: string; type?: string }[]; v6?: { ip_address?: string }[] };
  tags?: string[];
}

function fromDroplet(d: Droplet): DiscoveredInstance {
  const v4 = d.networks?.v4 ?? [];
  const all = ips(
    [...v4.filter((n) => n.type === 'public'), ...v4.filter((n) => n.type !== 'public'), ...(d.networks?.v6 ?? [])].map(
      (n) => n.ip_address,
    ),
  );
  return {
    instance_id: String(d.id),
    hostname: (d.name || String(d.id)).slice(0, 253),
    region: d.region?.slug ?? null,
    zone: null,
    ip_address: all[0] ?? null,
    ip_addresses: all,
    cpu: int(d.vcpus),
    memory_mb: int(d.memory),
    storage_gb: int(d.disk),
    tags: floorTags(d.tags ?? []),
  };
}

interface PagedApi<T> {
  base: () => string;
  path: string;
  items: (body: Record<string, unknown>) => T[];
  hasNext: (body: Record<string, unknown>) => boolean;
  map: (item: T) => DiscoveredInstance;
  verifyPath: string;
}

function pagedAdapter<T>(api: PagedApi<T>): ProviderAdapter {
  const token = (account: ProviderAccount) => {
    if (!account.token) throw new ProviderRefusal('The account has no API token.');
    return account.token;
  };
  return {
    async verify(account) {
      await getJson(`${api.base()}${api.verifyPath}`, token(account));
    },
    async list(account): Promise<Listing[]> {
      const secret = token(account);
      const instances: DiscoveredInstance[] = [];
      try {
        for (let page = 1; page <= MAX_PAGES; page++) {
          const body = (await getJson(`${api.base()}${api.path}?page=${page}&per_page=${PER_PAGE}`, secret)) as Record<
            string,
            unknown
          >;
          instances.push(
            ...api
              .items(body)
              .filter((i) => (i as { id?: unknown }).id != null)
              .map(api.map),
          );
          if (!api.hasNext(body)) return [{ scope: ALL_REGIONS, ok: true, instances }];
        }
        throw new Error('The provider kept paging.');
      } catch (err) {
        if (err instanceof ProviderRefusal) throw err;
        return [{ scope: ALL_REGIONS, ok: false, error: (err as Error).message }];
      }
    },
  };
}

export const hetznerAdapter = pagedAdapter<HetznerServer>({
  base: () => config().HETZNER_API_BASE_URL.replace(/\/$/, ''),
  path: '/servers',
  verifyPath: '/servers?per_page=1',
  items: (b) => (Array.isArray(b.servers) ? (b.servers as HetznerServer[]) : []),
  hasNext: (b) =>
    Boolean((b.meta as { pagination?: { next_page?: number | null } } | undefined)?.pagination?.next_page),
  map: fromHetzner,
});

export const digitalOceanAdapter = pagedAdapter<Droplet>({
  base: () => config().DIGITALOCEAN_API_BASE_URL.replace(/\/$/, ''),
  path: '/droplets',
  verifyPath: '/account',
  items: (b) => (Array.isArray(b.droplets) ? (b.droplets as Droplet[]) : []),
  hasNext: (b) => Boolean((b.links as { pages?: { next?: string } } | undefined)?.pages?.next),
  map: fromDroplet,
});
