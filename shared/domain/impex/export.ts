import { byConnectionOrder, type Connection } from '#domain/catalog';
import {
  IMPEX_API_VERSION, IMPEX_KIND, SERVICE_DOCUMENT_FIELDS, type DocumentAttachment, type DocumentConnection, type DocumentConnectionGroup, type DocumentFloor,
  type DocumentGroup, type DocumentLink, type DocumentNetwork, type DocumentService, type EnvironmentDocument,
} from './document';
import { readEnvironment } from './read';

/**
 * Export: everything live in one environment as the document. References by name (floors by
 * hostname), never ids; every list in a fixed order (by name, ties by content) and every entity's
 * fields in the schema's order, empty ones left out, so two exports of the same data are
 * byte-identical.
 */

/** The value without its empty fields (null, undefined, empty lists), nested objects in lists too. */
function compact<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null || v === undefined || (Array.isArray(v) && !v.length)) continue;
    out[k] = Array.isArray(v) ? v.map((x) => (typeof x === 'object' && x !== null ? compact(x) : x)) : v;
  }
  return out as T;
}

/** Code-unit order (locale-independent), ties by the whole entry. */
const byKey = <T>(key: (x: T) => string) => (a: T, b: T) => {
  const [ka, kb] = [key(a), key(b)];
  if (ka !== kb) return ka < kb ? -1 : 1;
  const [ja, jb] = [JSON.stringify(a), JSON.stringify(b)];
  return ja < jb ? -1 : ja > jb ? 1 : 0;
};

export async function buildExportDocument(input: { projectId: string; environmentId: string; recordId: string; exportedAt: string }): Promise<EnvironmentDocument> {
  const env = await readEnvironment(input.projectId, input.environmentId);
  const groupName = new Map(env.groups.map((g) => [g.id, g.name]));
  const subgroupName = new Map(env.subgroups.filter((s) => groupName.has(s.group_id)).map((s) => [s.id, s.name]));
  const hostname = new Map(env.floors.filter((f) => f.hostname).map((f) => [f.id, f.hostname!]));
  const networkName = new Map(env.networks.map((n) => [n.id, n.name]));
  const serviceName = new Map(env.services.map((s) => [s.id, s.name]));

  const groups: DocumentGroup[] = env.groups
    .map((g) =>
      compact({
        name: g.name,
        description: g.description ?? null,
        subgroups: env.subgroups
          .filter((s) => s.group_id === g.id)
          .map((s) => compact({ name: s.name, description: s.description ?? null }))
          .sort(byKey((s) => s.name)),
      }),
    )
    .sort(byKey((g) => g.name));

  const floors: DocumentFloor[] = env.floors
    .map((f) =>
      compact({
        hostname: f.hostname, type: f.floor_type, provider: f.provider, provider_region: f.provider_region, provider_zone: f.provider_zone,
        provider_instance_id: f.provider_instance_id, ip_address: f.ip_address, ip_addresses: f.ip_addresses, cpu: f.cpu, memory_mb: f.memory_mb,
        storage_gb: f.storage_gb, instances: f.instances, tags: f.tags,
      } as DocumentFloor),
    )
    .sort(byKey((f) => f.hostname ?? ''));

  const networks: DocumentNetwork[] = env.networks
    .map((n) => compact({ name: n.name, cidr: n.cidr, is_private: n.is_private, gateway: n.gateway, vlan_id: n.vlan_id, description: n.description } as DocumentNetwork))
    .sort(byKey((n) => n.name));

  const services: DocumentService[] = env.services
    .map((s) => {
      const group = s.group_id ? groupName.get(s.group_id) : undefined;
      const entry: Record<string, unknown> = {
        name: s.name,
        group,
        subgroup: group && s.subgroup_id ? subgroupName.get(s.subgroup_id) : undefined,
        floor: s.service_floor_id ? hostname.get(s.service_floor_id) : undefined,
      };
      for (const field of SERVICE_DOCUMENT_FIELDS) entry[field] = s[field];
      return compact(entry) as DocumentService;
    })
    .sort(byKey((s) => s.name));

  const links: DocumentLink[] = env.links
    .filter((l) => serviceName.has(l.from_service_id) && serviceName.has(l.to_service_id))
    .map((l) => ({ from: serviceName.get(l.from_service_id)!, to: serviceName.get(l.to_service_id)! }))
    .sort(byKey((l) => `${l.from}\u0000${l.to}`));

  const attachedNames = (ids: string[]) => [...new Set(ids.filter((id) => networkName.has(id)).map((id) => networkName.get(id)!))].sort(byKey((n) => n));
  const attachments: DocumentAttachment[] = [
    ...env.services
      .map((s) => ({ service: s.name, networks: attachedNames(s.network_ids) }))
      .filter((a) => a.networks.length)
      .sort(byKey((a) => a.service)),
    ...env.floors
      .filter((f) => f.hostname)
      .map((f) => ({ service_floor: f.hostname!, networks: attachedNames(f.network_ids) }))
      .filter((a) => a.networks.length)
      .sort(byKey((a) => a.service_floor)),
  ];

  // Connections, their ends named; one whose end the document cannot name (a floor without hostname) is left out, as links are.
  const endOf = (type: string, id: string) =>
    type === 'service' ? (serviceName.has(id) ? { service: serviceName.get(id)! } : undefined) : hostname.has(id) ? { service_floor: hostname.get(id)! } : undefined;
  const named = (c: Connection): DocumentConnection[] => {
    const [a, b] = [endOf(c.a_type, c.a_id), endOf(c.b_type, c.b_id)];
    return a && b ? [compact({ a, b, direction: c.direction, name: c.name })] : [];
  };
  const connections: DocumentConnection[] = env.connections.filter((c) => !c.chain_id).flatMap(named).sort(byKey((c) => JSON.stringify(c)));
  const members = new Map<string, Connection[]>();
  for (const c of env.connections) if (c.chain_id) members.set(c.chain_id, [...(members.get(c.chain_id) ?? []), c]);
  const connectionGroups: DocumentConnectionGroup[] = [...members.values()]
    .map((chain) => ({ group_kind: chain[0].group_kind ?? 'chain', connections: chain.sort(byConnectionOrder).flatMap(named) }))
    .filter((g) => g.connections.length)
    .sort(byKey((g) => JSON.stringify(g.connections[0])));

  return {
    apiVersion: IMPEX_API_VERSION,
    kind: IMPEX_KIND,
    metadata: {
      project: { id: env.project.id, name: env.project.name },
      environment: { id: env.environment.id, name: env.environment.name },
      exported_at: input.exportedAt,
      source_record: input.recordId,
    },
    spec: { groups, service_floors: floors, networks, services, service_links: links, network_attachments: attachments, connections, connection_groups: connectionGroups },
  };
}
