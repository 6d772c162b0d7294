import { byConnectionOrder } from '#domain/catalog';
import {
  IMPEX_API_VERSION,
  IMPEX_KIND,
  type DocumentAttachment,
  type DocumentConnection,
  type DocumentConnectionGroup,
  type DocumentFloor,
  type DocumentGroup,
  type DocumentLink,
  type DocumentNetwork,
  type DocumentSpec,
  type EnvironmentDocument,
} from './document.ts';
import { byKey, byText, compact, valuesOrNone } from './export-order.ts';
import { attachedNames, readForExport, type ConnectionRef } from './export-reads.ts';

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
        custom_fields: valuesOrNone(f.custom_fields),
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
        custom_fields: valuesOrNone(n.custom_fields),
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
