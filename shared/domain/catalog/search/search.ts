import ipaddr from 'ipaddr.js';
import { keys } from '#db/keys';
import { batchGet, type Key } from '#db/batch-get';
import { liveItem } from '#db/live';
import { queryPage } from '#db/query';
import type { Permission } from '#auth/permissions';
import { actorAccount, type AppContext } from '#shared/context';
import { accessAcrossEnvironments, accessInEnvironment } from '#domain/tenancy';
import { SEARCH_LISTINGS, entriesOf } from './search-listings.ts';
import { bucketOf, MIN_SUFFIX, SEARCH_KINDS, termOf, type SearchKind, type SearchText } from './entries.ts';

export interface SearchInput {
  project_id: string;
  q: string;
  environment_id?: string;
  kinds?: readonly SearchKind[];
  limit: number;
}
export interface SearchResult {
  kind: SearchKind;
  id: string;
  name: string;
  environment_id: string;
  match: SearchText;
}

/** What a caller must hold in an environment to find a kind there: what its list asks (GET /services, …). */
const VIEW: Record<SearchKind, Permission> = {
  service: 'services.view',
  service_floor: 'floors.view',
  network: 'networks.view',
};
const KIND_OF_TYPE = new Map(SEARCH_KINDS.map((k) => [SEARCH_LISTINGS[k].itemType, k]));
const ENTITY_KEY: Record<SearchKind, (projectId: string, envId: string, id: string) => Key> = {
  service: keys.service,
  service_floor: keys.floor,
  network: keys.network,
};

/** A hit in the index: where, what, and how good (tier, then `order`, lower first). */
interface Hit {
  envId: string;
  kind: SearchKind;
  id: string;
  place: string;
  tier: number;
  order: string;
}
/** Exact terms, then networks holding the address (or inside the CIDR), then longer terms, then inside a token. */
const TIER = { exact: 0, containment: 1, prefix: 2, substring: 3 } as const;

/** One range of an environment's index to read, and what a hit in it is. */
interface Lookup {
  prefix: string;
  hit: (place: string) => Pick<Hit, 'tier' | 'order'> | undefined;
}

/** The ranges a query reads in each environment (see entries.ts for the places). */
export function lookupsFor(q: string): Lookup[] {
  const term = termOf(q);
  const text = q.trim();
  const out: Lookup[] = [];
  if (term)
    out.push({
      prefix: `=${term}`,
      hit: (place) => ({ tier: place === `=${term}` ? TIER.exact : TIER.prefix, order: place }),
    });
  if (term.length >= MIN_SUFFIX && !term.includes('-'))
    out.push({ prefix: `~${term}`, hit: (place) => ({ tier: TIER.substring, order: place }) });
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) {
    const address = ipaddr.IPv4.parse(text);
    // The buckets a network holding it can be in: its /0–7, /8–15, /16–23 and /24–32 prefixes.
    for (const bits of [0, 8, 16, 24])
      out.push({
        prefix: `@${bucketOf(address.octets, bits)}|`,
        hit: (place) => {
          const [cidr, size] = networkOf(place);
          // Most specific first: the longest prefix sorts first.
          return address.match(cidr, size) ? { tier: TIER.containment, order: String(99 - size) } : undefined;
        },
      });
  } else if (ipaddr.IPv4.isValidCIDRFourPartDecimal(text)) {
    const [range, bits] = ipaddr.IPv4.parseCIDR(text);
    out.push({
      prefix: `@${bucketOf(ipaddr.IPv4.networkAddressFromCIDR(text).octets, bits)}`,
      hit: (place) => {
        const [cidr, size] = networkOf(place);
        // Inside: as long a prefix or longer, and its address in the range; by address, then size.
        if (size < bits || !cidr.match(range, bits)) return undefined;
        return { tier: TIER.containment, order: `${cidr.toByteArray().map((o) => `${o + 100}`)}/${size + 10}` };
      },
    });
  }
  return out;
}

const networkOf = (place: string) => ipaddr.IPv4.parseCIDR(place.slice(place.indexOf('|') + 1));

/** The place and environment of an index item, from its sort key (`SEARCHBY##<place>#<envId>#<id>`; no place holds `#`). */
const parts = (sk: string) => {
  const [, , place, envId] = sk.split('#');
  return { place, envId };
};

/**
 * GET /search: services, floors and networks whose name, hostname, tags, addresses or network
 * (docs/decisions/0975) match `q`, best first, at most `limit`, in the environments (or the one named)
 * where the caller may read each kind, as its list decides. Two round trips: the access (with the
 * caller's role in every environment and the project's environments) beside one Query per range to
 * read (entries.ts), each stopping at `limit` distinct items; then one BatchGet of the `limit` best
 * readable hits, each checked against what it holds now (one deleted or renamed meanwhile is left out).
 */
export async function search(ctx: AppContext, input: SearchInput): Promise<{ results: SearchResult[] }> {
  const { project_id: projectId, limit, environment_id: onlyEnv } = input;
  const userId = actorAccount(ctx).id;
  const wanted = new Set(input.kinds?.length ? input.kinds : SEARCH_KINDS);
  const read = (lookup: Lookup) => {
    const seen = new Set<string>();
    const hits: Hit[] = [];
    return queryPage<{ SK: string; id: string; type: string }>(
      projectId,
      keys.listingPrefix('SEARCH', '') + lookup.prefix,
      {
        wanted: limit,
        keep: (item) => {
          const kind = KIND_OF_TYPE.get(item.type);
          const { place, envId } = parts(item.SK);
          if (!kind || !wanted.has(kind) || seen.has(item.id) || (onlyEnv && envId !== onlyEnv)) return false;
          const rank = lookup.hit(place);
          if (!rank) return false;
          seen.add(item.id);
          hits.push({ envId, kind, id: item.id, place, ...rank });
          return true;
        },
      },
    ).then(() => hits);
  };
  const [{ access, envIds }, found] = await Promise.all([
    onlyEnv
      ? accessInEnvironment(projectId, userId, onlyEnv).then(({ access }) => ({ access, envIds: [onlyEnv] }))
      : accessAcrossEnvironments(projectId, userId),
    Promise.all(lookupsFor(input.q).map(read)),
  ]);
  // What the caller may read: live environments, each kind where its list would answer.
  const live = new Set(envIds);
  const readable = (h: Hit) => live.has(h.envId) && access.can(VIEW[h.kind], h.envId);
  const best = chooseBest(found.flat().filter(readable), limit);
  const items = await batchGet(best.map((h) => ENTITY_KEY[h.kind](projectId, h.envId, h.id)));
  const results: (SearchResult & { rank: Hit })[] = [];
  for (const hit of best) {
    const item = liveItem<Record<string, unknown>>(items, ENTITY_KEY[hit.kind](projectId, hit.envId, hit.id));
    if (!item) continue;
    const entity = SEARCH_LISTINGS[hit.kind].decode(item) as unknown as Record<string, unknown>;
    const entry = entriesOf(hit.kind, entity).find((e) => e.place === hit.place);
    if (!entry) continue;
    results.push({
      kind: hit.kind,
      id: hit.id,
      name: nameOf(hit.kind, entity),
      environment_id: hit.envId,
      match: { field: entry.field, value: entry.value },
      rank: hit,
    });
  }
  results.sort((a, b) => compareHits(a.rank, b.rank) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  return { results: results.map(({ rank: _rank, ...r }) => r) };
}

const compareHits = (a: Hit, b: Hit) => a.tier - b.tier || (a.order < b.order ? -1 : a.order > b.order ? 1 : 0);

/** The `limit` best hits, one per item (its best), best first. */
export function chooseBest(hits: Hit[], limit: number): Hit[] {
  const sorted = [...hits].sort((a, b) => compareHits(a, b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const seen = new Set<string>();
  return sorted.filter((h) => !seen.has(h.id) && seen.add(h.id)).slice(0, limit);
}

/** What a result is called: a service's or network's name, a floor's hostname (else its address, else its id). */
function nameOf(kind: SearchKind, item: Record<string, unknown>): string {
  const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  if (kind === 'service_floor') return text(item.hostname) ?? text(item.ip_address) ?? String(item.id);
  return String(item.name);
}
