import type { DocumentService, DocumentSpec, EnvironmentDocument } from '#domain/impex';

/**
 * `document` with `services` in place of its own, and every entry that names a service no longer in
 * it dropped: service links, a service's network attachments, connections, and a chain or hub with
 * such a member (a chain without one of its members would be another chain). The import accepts it
 * as long as `document` was accepted: names compared as the import compares them (trimmed, ignoring case).
 */
export function withServices(document: EnvironmentDocument, services: DocumentService[]): EnvironmentDocument {
  const key = (name: string) => name.trim().toLowerCase();
  const kept = new Set(services.map((s) => key(s.name)));
  const known = (name: string | null | undefined) => !name || kept.has(key(name));
  const joinsKept = (c: DocumentSpec['connections'][number]) => known(c.a.service) && known(c.b.service);
  const { spec } = document;
  return {
    ...document,
    spec: {
      ...spec,
      services,
      service_links: spec.service_links.filter((l) => known(l.from) && known(l.to)),
      network_attachments: spec.network_attachments.filter((a) => known(a.service)),
      connections: spec.connections.filter(joinsKept),
      connection_groups: spec.connection_groups.filter((g) => g.connections.every(joinsKept)),
    },
  };
}
