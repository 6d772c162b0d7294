import {
  byConnectionOrder,
  connectionEntity,
  floorEntity,
  linkEntity,
  networkEntity,
  serviceEntity,
  type Connection,
  type Service,
} from '#domain/catalog';
import { groupEntity, subgroupEntity } from '#domain/tenancy';
import { keys } from '#db/keys';
import { isLive, LIFECYCLE_FIELDS, type Lifecycle } from '#db/live';
import { queryPrefix, queryPrefixPages } from '#db/query';
import {
  IMPEX_API_VERSION,
  IMPEX_KIND,
  SERVICE_DOCUMENT_FIELDS,
  type DocumentAttachment,
  type DocumentConnection,
  type DocumentConnectionGroup,
  type DocumentFloor,
  type DocumentGroup,
  type DocumentLink,
  type DocumentNetwork,
  type DocumentSpec,
  type EnvironmentDocument,
} from './document';
import { readEnvironmentHead } from './read';

/**
 * Export: everything live in one environment as the document. References by name (floors by
 * hostname), never ids; every list in a fixed order (by name, ties by content) and every entity's
 * fields in the schema's order, empty ones left out, so two exports of the same data are
 * byte-identical.
 *
 * The document is produced in parts (`exportParts`), which the jobs worker renders and
 * uploads one after the other, so that neither the document nor the environment's entities are
 * ever held whole: the environment is read page by page and what is kept of each entity is what
 * the document needs of it (a service's entry as JSON text, its id → name; a connection's ends).
 */

/** Items a part carries at most (the YAML renderer takes one part at a time). */
export const PART_ITEMS = 500;

export type DocumentSection = keyof DocumentSpec;
export type DocumentHead = Omit<EnvironmentDocument, 'spec'>;
/** The document in its order: the head, then each section of `spec` as one or more parts of its items (an empty section, one empty part). */
export type DocumentPart = { head: DocumentHead } | { section: DocumentSection; items: unknown[] };

interface ExportInput {
  projectId: string;
  environmentId: string;
  recordId: string;
  exportedAt: string;
}

/** The value without its empty fields (null, undefined, empty lists), nested objects in lists too. */
function compact<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null || v === undefined || (Array.isArray(v) && !v.length)) continue;
    out[k] = Array.isArray(v) ? v.map((x) => (typeof x === 'object' && x !== null ? compact(x) : x)) : v;
  }
  return out as T;
}

/** Code-unit order (locale-independent). */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** Code-unit order of `key`, ties by the whole entry. */
const byKey =
  <T>(key: (x: T) => string) =>
  (a: T, b: T) =>
    byText(key(a), key(b)) || byText(JSON.stringify(a), JSON.stringify(b));

/** A kind's live items, read whole (the kinds a document has few of). */
async function liveItems<T extends Lifecycle>(
  projectId: string,
  prefix: string,
  decode: (raw: object) => T,
  projection?: string[],
) {
  return (await queryPrefix(projectId, prefix, projection ? { projection } : {})).map(decode).filter(isLive);
}

/** What the document needs of a connection: its ends and values; of a chain's member, also what orders it in its chain. */
type ConnectionRef = Pick<Connection, 'a_type' | 'a_id' | 'b_type' | 'b_id' | 'direction' | 'name'>;
type MemberRef = ConnectionRef & Pick<Connection, 'id' | 'chain_id' | 'group_kind' | 'created_at' | 'position'>;
const CONNECTION_FIELDS = [
  'id',
  'a_type',
  'a_id',
  'b_type',
  'b_id',
  'direction',
  'name',
  'chain_id',
  'group_kind',
  'created_at',
  'position',
  ...LIFECYCLE_FIELDS,
] as const;

/** The environment's connections, page by page, each cut down to what the document needs: those on their own, and chains' members by chain (in read order). */
async function readConnections(projectId: string, envId: string) {
  const single: ConnectionRef[] = [];
  const members = new Map<string, MemberRef[]>();
  for await (const page of queryPrefixPages(projectId, keys.connectionPrefix(envId), {
    projection: [...CONNECTION_FIELDS],
  })) {
    for (const c of page.map(connectionEntity.decode)) {
      if (!isLive(c)) continue;
      const { id, a_type, a_id, b_type, b_id, direction, name, chain_id, group_kind, created_at, position } = c;
      if (!chain_id) single.push({ a_type, a_id, b_type, b_id, direction, name });
      else
        members.set(chain_id, [
          ...(members.get(chain_id) ?? []),
          { a_type, a_id, b_type, b_id, direction, name, id, chain_id, group_kind, created_at, position },
        ]);
    }
  }
  return { single, members };
}

/** The sections that need the whole environment in memory no longer than their own reading. */
async function readSmallKinds(projectId: string, envId: string) {
  const [groups, subgroups, floors, networks, links] = await Promise.all([
    queryPrefix(projectId, keys.groupPrefix(envId)).then((items) => items.filter(isLive).map(groupEntity.decode)),
    queryPrefix(projectId, keys.subgroupPrefix(envId)).then((items) => items.filter(isLive).map(subgroupEntity.decode)),
    liveItems(projectId, keys.floorPrefix(envId), floorEntity.decode),
    liveItems(projectId, keys.networkPrefix(envId), networkEntity.decode),
    liveItems(projectId, keys.linkPrefix(envId), linkEntity.decode, [
      'from_service_id',
      'to_service_id',
      ...LIFECYCLE_FIELDS,
    ]),
  ]);
  const groupName = new Map(groups.map((g) => [g.id, g.name]));
  return {
    groups,
    subgroups,
    floors,
    networks,
    links,
    groupName,
    subgroupName: new Map(subgroups.filter((s) => groupName.has(s.group_id)).map((s) => [s.id, s.name])),
    hostname: new Map(floors.filter((f) => f.hostname).map((f) => [f.id, f.hostname!])),
    networkName: new Map(networks.map((n) => [n.id, n.name])),
  };
}
type SmallKinds = Awaited<ReturnType<typeof readSmallKinds>>;

/** The network names of `ids` the document can name, once each, in order. */
const attachedNames = (small: SmallKinds, ids: string[]) =>
  [...new Set(ids.filter((id) => small.networkName.has(id)).map((id) => small.networkName.get(id)!))].sort(byText);

/**
 * The services, page by page, as the document has them: each one's entry (as JSON text: a tenth of
 * the entity in memory), its name by id (for links and connections), its network attachments.
 * A page is turned into entries once the small kinds (whose names the entries carry) are read.
 */
async function readServices(projectId: string, envId: string, smallRead: Promise<SmallKinds>) {
  const entries: [name: string, json: string][] = [];
  const serviceName = new Map<string, string>();
  const attachments: DocumentAttachment[] = [];
  for await (const page of queryPrefixPages(projectId, keys.servicePrefix(envId))) {
    const small = await smallRead;
    for (const s of page.map(serviceEntity.decode)) {
      if (!isLive(s)) continue;
      serviceName.set(s.id, s.name);
      entries.push([s.name, JSON.stringify(serviceEntry(small, s))]);
      const networks = attachedNames(small, s.network_ids);
      if (networks.length) attachments.push({ service: s.name, networks });
    }
  }
  entries.sort(([na, ja], [nb, jb]) => byText(na, nb) || byText(ja, jb));
  return { entries, serviceName, attachments: attachments.sort(byKey((a) => a.service!)) };
}

function serviceEntry(small: SmallKinds, s: Service) {
  const group = s.group_id ? small.groupName.get(s.group_id) : undefined;
  const entry: Record<string, unknown> = {
    name: s.name,
    group,
    subgroup: group && s.subgroup_id ? small.subgroupName.get(s.subgroup_id) : undefined,
    floor: s.service_floor_id ? small.hostname.get(s.service_floor_id) : undefined,
  };
  for (const field of SERVICE_DOCUMENT_FIELDS) entry[field] = s[field];
  return compact(entry);
}

/** Every kind at once, each Query following its own pages (as readEnvironment does). */
function readForExport(projectId: string, envId: string) {
  const smallRead = readSmallKinds(projectId, envId);
  return Promise.all([
    readEnvironmentHead(projectId, envId),
    smallRead,
    readServices(projectId, envId, smallRead),
    readConnections(projectId, envId),
  ]);
}

/**
 * The document's parts, in order (see DocumentPart); `partItems` items a part at most. The reads
 * start at the call, not at the first part asked for: they overlap whatever the consumer does first
 * (the jobs worker loads the S3 and YAML libraries).
 */
export function exportParts(input: ExportInput, partItems = PART_ITEMS): AsyncGenerator<DocumentPart> {
  const read = readForExport(input.projectId, input.environmentId);
  // Its failure is the consumer's, at its first part; never an unhandled rejection in the meantime.
  read.catch(() => {});
  return partsOf(input, read, partItems);
}

async function* partsOf(
  input: ExportInput,
  read: ReturnType<typeof readForExport>,
  partItems: number,
): AsyncGenerator<DocumentPart> {
  const [head, small, services, connections] = await read;

  yield {
    head: {
      apiVersion: IMPEX_API_VERSION,
      kind: IMPEX_KIND,
      metadata: {
        project: { id: head.project.id, name: head.project.name },
        environment: { id: head.environment.id, name: head.environment.name },
        exported_at: input.exportedAt,
        source_record: input.recordId,
      },
    },
  };
  /** A section's items, `partItems` at a time (`make` turns what is kept into the document's items, a part at a time). */
  function* section<T>(name: DocumentSection, kept: T[], make: (x: T) => unknown = (x) => x): Generator<DocumentPart> {
    if (!kept.length) yield { section: name, items: [] };
    for (let i = 0; i < kept.length; i += partItems)
      yield { section: name, items: kept.slice(i, i + partItems).map(make) };
  }

  const groups: DocumentGroup[] = small.groups
    .map((g) =>
      compact({
        name: g.name,
        description: g.description ?? null,
        subgroups: small.subgroups
          .filter((s) => s.group_id === g.id)
          .map((s) => compact({ name: s.name, description: s.description ?? null }))
          .sort(byKey((s) => s.name)),
      }),
    )
    .sort(byKey((g) => g.name));
  yield* section('groups', groups);

  const floors: DocumentFloor[] = small.floors
    .map((f) =>
      compact({
        hostname: f.hostname,
        type: f.floor_type,
        provider: f.provider,
        provider_region: f.provider_region,
        provider_zone: f.provider_zone,
        provider_instance_id: f.provider_instance_id,
        ip_address: f.ip_address,
        ip_addresses: f.ip_addresses,
        cpu: f.cpu,
        memory_mb: f.memory_mb,
        storage_gb: f.storage_gb,
        instances: f.instances,
        tags: f.tags,
      } as DocumentFloor),
    )
    .sort(byKey((f) => f.hostname ?? ''));
  yield* section('service_floors', floors);

  const networks: DocumentNetwork[] = small.networks
    .map((n) =>
      compact({
        name: n.name,
        cidr: n.cidr,
        is_private: n.is_private,
        gateway: n.gateway,
        vlan_id: n.vlan_id,
        description: n.description,
      } as DocumentNetwork),
    )
    .sort(byKey((n) => n.name));
  yield* section('networks', networks);

  yield* section('services', services.entries, ([, json]) => JSON.parse(json));

  const { serviceName } = services;
  const links: DocumentLink[] = small.links
    .filter((l) => serviceName.has(l.from_service_id) && serviceName.has(l.to_service_id))
    .map((l) => ({ from: serviceName.get(l.from_service_id)!, to: serviceName.get(l.to_service_id)! }))
    .sort(byKey((l) => `${l.from}\u0000${l.to}`));
  yield* section('service_links', links);

  const floorAttachments: DocumentAttachment[] = small.floors
    .filter((f) => f.hostname)
    .map((f) => ({ service_floor: f.hostname!, networks: attachedNames(small, f.network_ids) }))
    .filter((a) => a.networks.length)
    .sort(byKey((a) => a.service_floor));
  yield* section('network_attachments', [...services.attachments, ...floorAttachments]);

  // Connections, their ends named; one whose end the document cannot name (a floor without hostname) is left out, as links are.
  const endOf = (type: string, id: string) =>
    type === 'service'
      ? serviceName.has(id)
        ? { service: serviceName.get(id)! }
        : undefined
      : small.hostname.has(id)
        ? { service_floor: small.hostname.get(id)! }
        : undefined;
  const named = (c: ConnectionRef): DocumentConnection[] => {
    const [a, b] = [endOf(c.a_type, c.a_id), endOf(c.b_type, c.b_id)];
    return a && b ? [compact({ a, b, direction: c.direction, name: c.name })] : [];
  };
  // Ordered by their JSON text, which is what is kept of them until they are written.
  const single = connections.single.flatMap((c) => named(c).map((n) => JSON.stringify(n))).sort(byText);
  connections.single.length = 0;
  yield* section('connections', single, (json) => JSON.parse(json));

  const connectionGroups: DocumentConnectionGroup[] = [...connections.members.values()]
    .map((chain) => ({
      group_kind: chain[0].group_kind ?? 'chain',
      connections: chain.sort(byConnectionOrder).flatMap(named),
    }))
    .filter((g) => g.connections.length)
    .sort(byKey((g) => JSON.stringify(g.connections[0])));
  yield* section('connection_groups', connectionGroups);
}

/** The whole document at once (tests, and whoever wants it as a value): the parts put together. */
export async function buildExportDocument(input: ExportInput): Promise<EnvironmentDocument> {
  let head: DocumentHead | undefined;
  const spec: Record<string, unknown[]> = {};
  for await (const part of exportParts(input)) {
    if ('head' in part) head = part.head;
    else (spec[part.section] ??= []).push(...part.items);
  }
  return { ...head!, spec: spec as DocumentSpec };
}
