import {
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
import { SERVICE_DOCUMENT_FIELDS, type DocumentAttachment } from './document.ts';
import { readEnvironmentHead } from './read.ts';
import { byKey, byText, compact, valuesOrNone } from './export-order.ts';

/**
 * The export's reads: the environment page by page, each entity cut down to what the document needs of
 * it (a service's entry as JSON text, its id → name; a connection's ends), the small kinds read whole.
 */

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
export type ConnectionRef = Pick<Connection, 'a_type' | 'a_id' | 'b_type' | 'b_id' | 'direction' | 'name'>;
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
export const attachedNames = (small: SmallKinds, ids: string[]) =>
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
  entry.custom_fields = valuesOrNone(s.custom_fields);
  return compact(entry);
}

/** Every kind at once, each Query following its own pages (as readEnvironment does). */
export function readForExport(projectId: string, envId: string) {
  const smallRead = readSmallKinds(projectId, envId);
  return Promise.all([
    readEnvironmentHead(projectId, envId),
    smallRead,
    readServices(projectId, envId, smallRead),
    readConnections(projectId, envId),
  ]);
}
