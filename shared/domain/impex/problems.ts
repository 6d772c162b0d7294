import { checkGateway, ipv4Address, ipv4Cidr, pairKey, type Direction } from '#domain/catalog';
import { DomainError } from '#shared/errors';
import { foldName } from '#shared/text';

/**
 * The document's rules across entities, which a JSON Schema cannot state: names unique where the
 * document refers by them (ignoring case, as the name claims do), every reference naming an
 * entity of the document, a subgroup inside its service's group, one attachment entry per holder,
 * a gateway inside its network, a connection's ends named once each and no two connections alike. Checked on the raw parsed value, defensively (a value of the wrong
 * type is the schema's error, not one more here), so that one pass reports schema and rule errors
 * together.
 */

export type Path = (string | number)[];
export interface Problem {
  path: Path;
  message: string;
}

/** Document order of two paths (sections in the order the checks name them, indexes by number). */
const SECTION_ORDER = [
  'groups',
  'service_floors',
  'networks',
  'services',
  'service_links',
  'network_attachments',
  'connections',
  'connection_groups',
];
export function comparePaths(a: Path, b: Path): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [x, y] = [a[i], b[i]];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    const [sx, sy] = [SECTION_ORDER.indexOf(String(x)), SECTION_ORDER.indexOf(String(y))];
    if (sx >= 0 && sy >= 0) return sx - sy;
    return String(x) < String(y) ? -1 : 1;
  }
  return a.length - b.length;
}

/** How the document's names compare: trimmed, ignoring case (the name sentinels' rule). */
export const nameKey = foldName;

type Raw = Record<string, unknown>;
const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v : undefined);

/** Entries of a section with their index, objects only. */
const entries = (section: unknown) => list(section).flatMap((e, i) => (isObject(e) ? [{ e, i }] : []));

/** name key → index of its first definition; a second one is a problem at `path(i)`. */
function uniqueNames(
  items: { value: string | undefined; path: Path }[],
  what: string,
  problems: Problem[],
): Map<string, number> {
  const seen = new Map<string, number>();
  items.forEach(({ value, path }, i) => {
    if (value === undefined) return;
    const key = nameKey(value);
    if (seen.has(key))
      problems.push({ path, message: `Duplicate ${what} '${value}': names must be unique (ignoring case)` });
    else seen.set(key, i);
  });
  return seen;
}

export function documentProblems(doc: unknown): Problem[] {
  const problems: Problem[] = [];
  const spec = isObject(doc) && isObject(doc.spec) ? doc.spec : {};
  const at = (...p: Path): Path => ['spec', ...p];

  // Groups and their subgroups.
  const groups = entries(spec.groups);
  uniqueNames(
    groups.map(({ e, i }) => ({ value: str(e.name), path: at('groups', i, 'name') })),
    'group name',
    problems,
  );
  const subgroupsOf = new Map<string, Set<string>>();
  for (const { e: g, i } of groups) {
    const subs = entries(g.subgroups);
    uniqueNames(
      subs.map(({ e, i: j }) => ({ value: str(e.name), path: at('groups', i, 'subgroups', j, 'name') })),
      `subgroup name in group '${str(g.name) ?? ''}'`,
      problems,
    );
    const groupName = str(g.name);
    if (groupName && !subgroupsOf.has(nameKey(groupName)))
      subgroupsOf.set(
        nameKey(groupName),
        new Set(subs.flatMap(({ e }) => (str(e.name) ? [nameKey(str(e.name)!)] : []))),
      );
  }

  // Floors: named by hostname, so a floor needs one.
  const floors = entries(spec.service_floors);
  for (const { e, i } of floors) {
    if (e.hostname === undefined || e.hostname === null || (typeof e.hostname === 'string' && !e.hostname.trim())) {
      problems.push({
        path: at('service_floors', i, 'hostname'),
        message: 'A service floor needs a hostname: the document names floors by hostname',
      });
    }
  }
  const hostnames = uniqueNames(
    floors.map(({ e, i }) => ({ value: str(e.hostname), path: at('service_floors', i, 'hostname') })),
    'floor hostname',
    problems,
  );

  // Networks: unique names, a gateway inside the network.
  const networks = entries(spec.networks);
  const networkNames = uniqueNames(
    networks.map(({ e, i }) => ({ value: str(e.name), path: at('networks', i, 'name') })),
    'network name',
    problems,
  );
  for (const { e, i } of networks) {
    if (typeof e.gateway !== 'string' || typeof e.cidr !== 'string') continue;
    if (!ipv4Cidr().safeParse(e.cidr).success || !ipv4Address().safeParse(e.gateway).success) continue;
    try {
      checkGateway(e.cidr.trim(), e.gateway.trim());
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      problems.push({ path: at('networks', i, 'gateway'), message: String(err.detail) });
    }
  }

  // Services and their references.
  const services = entries(spec.services);
  const serviceNames = uniqueNames(
    services.map(({ e, i }) => ({ value: str(e.name), path: at('services', i, 'name') })),
    'service name',
    problems,
  );
  for (const { e, i } of services) {
    const group = str(e.group);
    const subgroup = str(e.subgroup);
    const floor = str(e.floor);
    if (group && !subgroupsOf.has(nameKey(group)))
      problems.push({
        path: at('services', i, 'group'),
        message: `Unknown group '${group}': no group of that name in the document`,
      });
    if (subgroup) {
      if (!group)
        problems.push({
          path: at('services', i, 'subgroup'),
          message: `Subgroup '${subgroup}' needs its group: set the service's group too`,
        });
      else if (subgroupsOf.has(nameKey(group)) && !subgroupsOf.get(nameKey(group))!.has(nameKey(subgroup))) {
        problems.push({
          path: at('services', i, 'subgroup'),
          message: `Unknown subgroup '${subgroup}': group '${group}' has no subgroup of that name in the document`,
        });
      }
    }
    if (floor && !hostnames.has(nameKey(floor)))
      problems.push({
        path: at('services', i, 'floor'),
        message: `Unknown service floor '${floor}': no floor with that hostname in the document`,
      });
  }

  // Links between services.
  const pairs = new Set<string>();
  for (const { e, i } of entries(spec.service_links)) {
    const from = str(e.from);
    const to = str(e.to);
    for (const [end, value] of [
      ['from', from],
      ['to', to],
    ] as const) {
      if (value && !serviceNames.has(nameKey(value)))
        problems.push({
          path: at('service_links', i, end),
          message: `Unknown service '${value}': no service of that name in the document`,
        });
    }
    if (!from || !to) continue;
    if (nameKey(from) === nameKey(to))
      problems.push({ path: at('service_links', i, 'to'), message: 'A service may not be linked to itself' });
    const pair = `${nameKey(from)}>${nameKey(to)}`;
    if (pairs.has(pair))
      problems.push({ path: at('service_links', i), message: `Duplicate link from '${from}' to '${to}'` });
    pairs.add(pair);
  }

  // Attachments: one entry per service or floor, naming networks of the document.
  const holders = new Set<string>();
  for (const { e, i } of entries(spec.network_attachments)) {
    const serviceName = str(e.service);
    const floorName = str(e.service_floor);
    if (Boolean(serviceName) === Boolean(floorName)) {
      problems.push({
        path: at('network_attachments', i),
        message: 'An attachment names exactly one of service or service_floor',
      });
    } else if (serviceName && !serviceNames.has(nameKey(serviceName))) {
      problems.push({
        path: at('network_attachments', i, 'service'),
        message: `Unknown service '${serviceName}': no service of that name in the document`,
      });
    } else if (floorName && !hostnames.has(nameKey(floorName))) {
      problems.push({
        path: at('network_attachments', i, 'service_floor'),
        message: `Unknown service floor '${floorName}': no floor with that hostname in the document`,
      });
    } else {
      const holder = serviceName ? `service>${nameKey(serviceName)}` : `floor>${nameKey(floorName!)}`;
      if (holders.has(holder))
        problems.push({
          path: at('network_attachments', i),
          message: `Attachments of ${serviceName ? `service '${serviceName}'` : `service floor '${floorName}'`} are listed twice: one entry holds the whole set`,
        });
      holders.add(holder);
    }
    const listed = new Set<string>();
    list(e.networks).forEach((n, j) => {
      const network = str(n);
      if (!network) return;
      if (!networkNames.has(nameKey(network)))
        problems.push({
          path: at('network_attachments', i, 'networks', j),
          message: `Unknown network '${network}': no network of that name in the document`,
        });
      else if (listed.has(nameKey(network)))
        problems.push({
          path: at('network_attachments', i, 'networks', j),
          message: `Network '${network}' is listed twice`,
        });
      listed.add(nameKey(network));
    });
  }
  // Connections, on their own and in chains and hubs: each end names one entity of the document; no
  // two connections join the same ends in the same direction (the API's duplicate rule).
  const joined = new Set<string>();
  const connections = [
    ...entries(spec.connections).map(({ e, i }) => ({ e, path: at('connections', i) })),
    ...entries(spec.connection_groups).flatMap(({ e: g, i }) =>
      entries(g.connections).map(({ e, i: j }) => ({ e, path: at('connection_groups', i, 'connections', j) })),
    ),
  ];
  for (const { e, path } of connections) {
    const ends = (['a', 'b'] as const).map((end) => {
      const value = isObject(e[end]) ? e[end] : {};
      const [service, floor] = [str(value.service), str(value.service_floor)];
      if (Boolean(service) === Boolean(floor))
        problems.push({
          path: [...path, end],
          message: 'A connection end names exactly one of service or service_floor',
        });
      else if (service && !serviceNames.has(nameKey(service)))
        problems.push({
          path: [...path, end, 'service'],
          message: `Unknown service '${service}': no service of that name in the document`,
        });
      else if (floor && !hostnames.has(nameKey(floor)))
        problems.push({
          path: [...path, end, 'service_floor'],
          message: `Unknown service floor '${floor}': no floor with that hostname in the document`,
        });
      else
        return service
          ? { type: 'service' as const, id: nameKey(service) }
          : { type: 'floor' as const, id: nameKey(floor!) };
      return undefined;
    });
    const [a, b] = ends;
    if (!a || !b) continue;
    if (a.type === b.type && a.id === b.id) {
      problems.push({ path: [...path, 'b'], message: 'An entity may not be connected to itself' });
      continue;
    }
    const direction = (typeof e.direction === 'string' ? e.direction : 'none') as Direction;
    const pair = pairKey({ a_type: a.type, a_id: a.id, b_type: b.type, b_id: b.id, direction });
    if (joined.has(pair))
      problems.push({
        path,
        message: 'Duplicate connection: another connection of the document joins these two ends in this direction',
      });
    joined.add(pair);
  }
  return problems.sort((a, b) => comparePaths(a.path, b.path));
}
