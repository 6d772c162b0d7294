import type { DocumentConnectionEnd, EnvironmentDocument } from '../document.ts';
import type { EnvironmentContents } from '../read.ts';
import { KIND, type Extra } from './report.ts';

/**
 * What the environment has that the document lacks: every plan lists it (`report.extras`),
 * an import with `prune` deletes it. Matched as the import matches: services, networks and groups by
 * name and floors by hostname, ignoring case; subgroups by their group's name and theirs; links by the
 * names they join; connections (chain and hub members included) by their two ends, either way round,
 * each pair as often as the document has it (a direction or name change is the import's update).
 * In the order they are deleted: what refers to others first, what holds others last.
 */
type Fields = Record<string, unknown>;
const lower = (s: unknown) => String(s ?? '').toLowerCase();
/** The entries of a list of the spec, as read (a document with problems may hold anything there). */
const list = (v: unknown): Fields[] =>
  Array.isArray(v) ? v.filter((x): x is Fields => typeof x === 'object' && x !== null) : [];
const endName = (e: unknown) => {
  const end = (e ?? {}) as Partial<DocumentConnectionEnd>;
  return end.service !== undefined && end.service !== null
    ? `service:${lower(end.service)}`
    : `floor:${lower(end.service_floor)}`;
};
const pair = (a: string, b: string) => [a, b].sort().join('|');

/** `spec`: a valid document's, or one with problems as it was read (problems never hide what a prune deletes). */
export function extrasOf(spec: EnvironmentDocument['spec'] | unknown, env: EnvironmentContents): Extra[] {
  const s = (spec ?? {}) as Fields;
  const groups = list(s.groups);
  const kept = {
    service: new Set(list(s.services).map((x) => lower(x.name))),
    floor: new Set(list(s.service_floors).map((x) => lower(x.hostname))),
    network: new Set(list(s.networks).map((x) => lower(x.name))),
    group: new Set(groups.map((g) => lower(g.name))),
    subgroup: new Set(groups.flatMap((g) => list(g.subgroups).map((x) => `${lower(g.name)}/${lower(x.name)}`))),
    link: new Set(list(s.service_links).map((l) => `${lower(l.from)}>${lower(l.to)}`)),
  };
  const names = new Map<string, string>([
    ...env.services.map((s) => [s.id, s.name] as const),
    ...env.floors.map((f) => [f.id, f.hostname ?? f.id] as const),
  ]);
  const nameOf = (id: string) => names.get(id) ?? id;
  const endOf = (type: string, id: string) => `${type === 'service' ? 'service' : 'floor'}:${lower(nameOf(id))}`;

  // The document's connections as pairs of end names, each as often as the document has it.
  const wanted = new Map<string, number>();
  for (const c of [...list(s.connections), ...list(s.connection_groups).flatMap((g) => list(g.connections))]) {
    const key = pair(endName(c.a), endName(c.b));
    wanted.set(key, (wanted.get(key) ?? 0) + 1);
  }
  const connections: Extra[] = [];
  for (const c of env.connections) {
    const key = pair(endOf(c.a_type, c.a_id), endOf(c.b_type, c.b_id));
    const left = wanted.get(key) ?? 0;
    if (left) wanted.set(key, left - 1);
    else
      connections.push({
        kind: KIND.connection,
        id: c.id,
        name: `${nameOf(c.a_id)} – ${nameOf(c.b_id)}${c.name ? ` (${c.name})` : ''}`,
      });
  }
  const groupName = new Map(env.groups.map((g) => [g.id, g.name]));
  return [
    ...connections,
    ...env.links
      .filter((l) => !kept.link.has(`${lower(nameOf(l.from_service_id))}>${lower(nameOf(l.to_service_id))}`))
      .map((l) => ({ kind: KIND.link, id: l.id, name: `${nameOf(l.from_service_id)} → ${nameOf(l.to_service_id)}` })),
    ...env.services
      .filter((s) => !kept.service.has(lower(s.name)))
      .map((s) => ({ kind: KIND.service, id: s.id, name: s.name })),
    ...env.floors
      .filter((f) => !kept.floor.has(lower(f.hostname)))
      .map((f) => ({ kind: KIND.floor, id: f.id, name: f.hostname ?? f.id })),
    ...env.networks
      .filter((n) => !kept.network.has(lower(n.name)))
      .map((n) => ({ kind: KIND.network, id: n.id, name: n.name })),
    // A subgroup of a group that goes is deleted with it.
    ...env.subgroups
      .filter(
        (s) =>
          kept.group.has(lower(groupName.get(s.group_id))) &&
          !kept.subgroup.has(`${lower(groupName.get(s.group_id))}/${lower(s.name)}`),
      )
      .map((s) => ({ kind: KIND.subgroup, id: s.id, name: `${groupName.get(s.group_id)}/${s.name}` })),
    ...env.groups
      .filter((g) => !kept.group.has(lower(g.name)))
      .map((g) => ({ kind: KIND.group, id: g.id, name: g.name })),
  ];
}
