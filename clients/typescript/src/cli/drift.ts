import { parse } from 'yaml';
import { collect } from '../paging.js';
import type { Connected } from './context.js';
import { inEnv, type Target } from './target.js';

/**
 * What the environment has that the document does not (issue 36): listed by every plan, deleted
 * by `--prune`. Services, floors, networks and groups by name (hostname for floors, ignoring case,
 * as the import matches them); links by the names they join; connections, chain and hub members included, by their two ends
 * (either way round: a direction or name change is the import's update, not a deletion).
 */
export interface Extra {
  kind: 'service_connection' | 'service_link' | 'service' | 'service_floor' | 'network' | 'group';
  id: string;
  name: string;
}

type End = { service?: string; service_floor?: string };
interface Spec {
  services?: { name?: string }[];
  service_floors?: { hostname?: string }[];
  networks?: { name?: string }[];
  groups?: { name?: string }[];
  service_links?: { from?: string; to?: string }[];
  connections?: { a?: End; b?: End }[];
  connection_groups?: { connections?: { a?: End; b?: End }[] }[];
}

const lower = (s: unknown) => String(s ?? '').toLowerCase();
const endName = (e: End | undefined) => (e?.service !== undefined ? `service:${lower(e.service)}` : `floor:${lower(e?.service_floor)}`);
const pair = (a: string, b: string) => [a, b].sort().join('|');

/** The extras of the environment beside the document's text (none when the text does not parse: its problems are reported instead). */
export async function extrasOf(c: Connected, t: Target, text: string): Promise<Extra[]> {
  let spec: Spec;
  try {
    spec = ((parse(text) as { spec?: Spec } | null)?.spec ?? {}) as Spec;
  } catch {
    return [];
  }
  const q = { params: { query: inEnv(t) } };
  const [services, floors, networks, groups, connections, links] = await Promise.all([
    collect(c.client.services(inEnv(t))),
    c.client.api.GET('/service-floors', q).then((r) => r.data!),
    c.client.api.GET('/networks', q).then((r) => r.data!),
    c.client.api.GET('/groups', q).then((r) => r.data!),
    c.client.api.GET('/service-connections', q).then((r) => r.data!),
    c.client.api.GET('/service-links', q).then((r) => r.data!),
  ]);
  const keep = (list: { name?: string; hostname?: string }[] | undefined, key: 'name' | 'hostname') => new Set((list ?? []).map((e) => lower(e?.[key])));
  const kept = { service: keep(spec.services, 'name'), floor: keep(spec.service_floors, 'hostname'), network: keep(spec.networks, 'name'), group: keep(spec.groups, 'name') };

  // The document's connections as pairs of end names, each pair as often as the document has it.
  const wanted = new Map<string, number>();
  for (const x of [...(spec.connections ?? []), ...(spec.connection_groups ?? []).flatMap((g) => g.connections ?? [])]) {
    const key = pair(endName(x?.a), endName(x?.b));
    wanted.set(key, (wanted.get(key) ?? 0) + 1);
  }
  const names = new Map<string, string>([...services.map((s) => [s.id, s.name] as const), ...floors.map((f) => [f.id, f.hostname ?? f.id] as const)]);
  const endOf = (type: string, id: string) => `${type === 'service' ? 'service' : 'floor'}:${lower(names.get(id) ?? id)}`;
  const extraConnections: Extra[] = [];
  for (const x of connections) {
    const key = pair(endOf(x.a_type, x.a_id), endOf(x.b_type, x.b_id));
    const left = wanted.get(key) ?? 0;
    if (left) wanted.set(key, left - 1);
    else extraConnections.push({ kind: 'service_connection', id: x.id, name: `${names.get(x.a_id) ?? x.a_id} – ${names.get(x.b_id) ?? x.b_id}${x.name ? ` (${x.name})` : ''}` });
  }
  const linked = new Set((spec.service_links ?? []).map((l) => `${lower(l?.from)}>${lower(l?.to)}`));
  const nameOf = (id: string) => names.get(id) ?? id;
  const extraLinks = links
    .filter((l) => !linked.has(`${lower(nameOf(l.from_service_id))}>${lower(nameOf(l.to_service_id))}`))
    .map((l) => ({ kind: 'service_link' as const, id: l.id, name: `${nameOf(l.from_service_id)} → ${nameOf(l.to_service_id)}` }));
  return [
    ...extraConnections,
    ...extraLinks,
    ...services.filter((s) => !kept.service.has(lower(s.name))).map((s) => ({ kind: 'service' as const, id: s.id, name: s.name })),
    ...floors.filter((f) => !kept.floor.has(lower(f.hostname))).map((f) => ({ kind: 'service_floor' as const, id: f.id, name: f.hostname ?? f.id })),
    ...networks.filter((n) => !kept.network.has(lower(n.name))).map((n) => ({ kind: 'network' as const, id: n.id, name: n.name })),
    ...groups.filter((g) => !kept.group.has(lower(g.name))).map((g) => ({ kind: 'group' as const, id: g.id, name: String(g.name) })),
  ];
}

/** "2 services and 1 service_connection" */
export function countsOf(extras: Extra[]): string {
  const counts = new Map<string, number>();
  for (const e of extras) counts.set(e.kind, (counts.get(e.kind) ?? 0) + 1);
  const parts = [...counts].map(([kind, n]) => `${n} ${kind}${n === 1 ? '' : 's'}`);
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : (parts[0] ?? 'nothing');
}

/** Deletes the extras: connections and links first, then services, floors, networks, groups (what holds others last). */
export async function deleteExtras(c: Connected, extras: Extra[]): Promise<void> {
  const del = {
    service_connection: (id: string) => c.client.api.DELETE('/service-connections/{connection_id}', { params: { path: { connection_id: id } } }),
    service_link: (id: string) => c.client.api.DELETE('/service-links/{link_id}', { params: { path: { link_id: id } } }),
    service: (id: string) => c.client.api.DELETE('/services/{service_id}', { params: { path: { service_id: id } } }),
    service_floor: (id: string) => c.client.api.DELETE('/service-floors/{floor_id}', { params: { path: { floor_id: id } } }),
    network: (id: string) => c.client.api.DELETE('/networks/{network_id}', { params: { path: { network_id: id } } }),
    group: (id: string) => c.client.api.DELETE('/groups/{group_id}', { params: { path: { group_id: id } } }),
  };
  for (const kind of Object.keys(del) as Extra['kind'][]) for (const e of extras.filter((x) => x.kind === kind)) await del[kind](e.id);
}
