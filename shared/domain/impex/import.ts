import { keys } from '#db/keys';
import { keyId, type Key } from '#db/batch-get';
import { getItem } from '#db/items';
import { isLive, setFieldsStep, stillLiveStep, whileLiveStep } from '#db/live';
import { referenceStep, withReference } from '#db/refs';
import { counterStep, IF_ABSENT } from '#db/steps';
import { stagedWrite, undoStagedWrites, type StagedWrite } from '#db/staged-write';
import { concurrentChange, transact, type TransactStep } from '#db/transact';
import { changeAudit, creationAudit, type AuditActor } from '#shared/audit';
import { conflict, DomainError, invalid } from '#shared/errors';
import type { AppContext } from '#shared/context';
import { quotaOf, quotaReached, SERVICES_QUOTA, takeQuotaStep, type Plan } from '#domain/billing';
import {
  auditedConnection, CHAIN_FULL, chainEntity, chainShown, connectionEntity, connectionsVersionStep, entityKey, floorEntity, linkEntity, MAX_BATCH_CONNECTIONS,
  MAX_CHAIN_CONNECTIONS, networkEntity, newFloorSteps, newLinkSteps, newNetworkSteps, newServiceSteps, pairKey, putChainSteps, putConnectionSteps, serviceEntity,
  serviceHintsStep, serviceListing, floorListing, networkListing, type Listable, type Listing, type Connection, type ConnectionSpec, type Floor, type Network, type Service,
} from '#domain/catalog';
import { ENV_NOT_IN_PROJECT, envLiveCheck, newGroupSteps, newSubgroupSteps, planOfProject, serviceQuotaAddon, type Group, type Subgroup } from '#domain/tenancy';
import { SERVICE_DOCUMENT_FIELDS, type DocumentConnection, type DocumentConnectionEnd, type DocumentService, type EnvironmentDocument } from './document';
import { importError, pointer, type ImportError } from './parse';
import { documentProblems, nameKey, type Path } from './problems';
import { readEnvironment, type EnvironmentContents } from './read';

/**
 * Import: plan (read the target environment once, match every entity of the document by name,
 * resolve the references, check the service limit for the whole import; write nothing), then
 * apply (chunked transactions built with the catalog's and tenancy's own step builders, the
 * service counters moved with their limit in the same transactions).
 *
 * Matching: groups, networks and services by name, subgroups by name within their group, floors
 * by hostname, all ignoring case (the name claims' rule). A match whose stored state differs is
 * updated (only the fields that differ); otherwise it is unchanged. An import never deletes: what
 * the environment has beyond the document stays. Links are created when the pair is not linked yet.
 * A connection matches the one joining the same ends in the same direction (the API's duplicate
 * rule; its name is then updated); a chain or hub matches the chain its matched members are in.
 */

export type ImportAction = 'create' | 'update' | 'unchanged' | 'error';
export interface ImportItem {
  kind: string;
  name: string;
  action: ImportAction;
  detail?: string;
}
export interface ImportReport {
  /** Items by action; `error` is the number of problems (`errors`). */
  summary: { create: number; update: number; unchanged: number; error: number };
  items: ImportItem[];
  errors: ImportError[];
}

type CreateKind = 'group' | 'subgroup' | 'network' | 'floor' | 'service' | 'link' | 'connection' | 'chain';

/** A counter moved on a shared item (project, environment, parent group), merged per item in a transaction. */
interface CounterMove {
  key: Key;
  counter: string;
  units: number;
  /** The service limit applies to this counter. */
  serviceQuota?: boolean;
  /** The item must stay live (the environment, a parent group); otherwise `gone`. */
  whileLive?: string;
  /** The counter may not pass this (a chain's members); otherwise `full`. */
  max?: { value: number; full: string };
  /** The move adds a reference to its item (a chain's member, a group's subgroup): its delete then misses none (db/refs.ts). */
  reference?: boolean;
}

/** One entity's writes: an entry of the plan. Plain data (no timestamps: apply stamps them). */
interface Unit {
  /** Index into the report's items. */
  item: number;
  /** Order of application: a phase's units commit before the next phase starts (parents before children, networks before holders). */
  phase: number;
  create?: { kind: CreateKind; fields: Record<string, unknown>; members?: Record<string, unknown>[] };
  /** More items of the report this unit writes (a new chain's first members). */
  also?: number[];
  update?: {
    key: Key; changes: Record<string, unknown>; gone: string; audit?: { id: string; head: string | null; before: Record<string, unknown> };
    hints?: { id: string; service_floor_id: string | null; group_id: string | null; subgroup_id: string | null };
    /** A listed entity's listing writes (issue 26) and the condition that keeps them exact (catalog/listing.ts). */
    listing?: { steps: TransactStep[]; asRead?: ReturnType<Listing<Listable>['asRead']> };
  };
  /**
   * Items that must still be live when this unit commits (what it refers to), with the refusal
   * otherwise; `edge`: the unit adds an edge to it (a connection or link end, a service's server),
   * which moves its refs version on so that its delete misses none (db/refs.ts).
   */
  guards: { key: Key; gone: string; edge?: boolean }[];
  counters: CounterMove[];
}

export interface ImportPlan {
  report: ImportReport;
  projectId: string;
  environmentId: string;
  /** The project owner's plan and the project's add-on, as read when planning (the limit apply enforces). */
  plan: Plan | null;
  addon: number;
  /** The environment's connections_version the plan read its connections at. */
  connectionsVersion: number;
  /** How many units (entities to write) the plan has. */
  total: number;
  /** What apply plans again from, a slice at a time (never every unit at once: the memory of a 50,000-service import); null without a plan. */
  source: { document: EnvironmentDocument; env: EnvironmentContents } | null;
}

const KIND = {
  group: 'group', subgroup: 'subgroup', floor: 'service_floor', network: 'network', service: 'service', link: 'service_link',
  connection: 'service_connection', chain: 'connection_group',
} as const;

const ARROWS = { none: '--', a_to_b: '->', b_to_a: '<-', both: '<->' } as const;
const endLabel = (e: DocumentConnectionEnd) => e.service ?? `floor ${e.service_floor}`;
/** How the report names a connection: its ends and an arrow for its direction. */
const connectionLabel = (c: DocumentConnection) => `${endLabel(c.a)} ${ARROWS[c.direction]} ${endLabel(c.b)}`;

/** Refusal of a connection write whose environment's connections changed since the plan read them. */
const CONNECTIONS_CHANGED = 'The connections of the environment changed during the import: import again to finish';

/** Equality of stored values, whatever the key order of maps read back from the table. */
const canonical = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(canonical) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, x]) => [k, canonical(x)])) : v;
const same = (a: unknown, b: unknown) => JSON.stringify(canonical(a ?? null)) === JSON.stringify(canonical(b ?? null));

/** The fields of `wanted` whose value differs from `stored`. */
function changed(stored: Record<string, unknown>, wanted: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(wanted).filter(([k, v]) => !same(stored[k], v)));
}

const sameSet = (a: string[], b: string[]) => same([...new Set(a)].sort(), [...new Set(b)].sort());

/** A document service's value fields as stored: lists empty and the rest null when absent. */
function serviceValues(s: DocumentService): Partial<Service> {
  const out: Record<string, unknown> = {};
  for (const field of SERVICE_DOCUMENT_FIELDS) {
    const v = s[field];
    if (field === 'repository_deps') out[field] = (s.repository_deps ?? []).map((d) => ({ name: d.name, repository_url: d.repository_url ?? null, version: d.version ?? null }));
    else if (field === 'links' || field === 'tags') out[field] = v ?? [];
    else out[field] = v ?? null;
  }
  return out as Partial<Service>;
}

function summarize(items: ImportItem[], errors: ImportError[]): ImportReport['summary'] {
  const count = (a: ImportAction) => items.filter((i) => i.action === a).length;
  return { create: count('create'), update: count('update'), unchanged: count('unchanged'), error: errors.length };
}

/** The one entity per key (lower-cased name); more than one live entity of a name in the environment is ambiguous. */
function byName<T>(xs: T[], name: (x: T) => string | null | undefined): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const x of xs) {
    const n = name(x);
    if (!n) continue;
    const key = nameKey(n);
    map.set(key, [...(map.get(key) ?? []), x]);
  }
  return map;
}

export async function planImport(input: { projectId: string; environmentId: string; document: EnvironmentDocument }, ctx: AppContext): Promise<ImportPlan> {
  const { projectId, environmentId: envId, document: doc } = input;
  const empty = (errors: ImportError[]): ImportPlan => ({
    report: { summary: summarize([], errors), items: [], errors }, projectId, environmentId: envId, plan: null, addon: 0, connectionsVersion: 0, total: 0, source: null,
  });
  // The document's own rules (parseDocument checked them with line numbers; checked again for a document built in code).
  const problems = documentProblems(doc);
  if (problems.length) return empty(problems.map(importError));

  const env = await readEnvironment(projectId, envId);
  const plan = await planOfProject(env.project);
  const addon = serviceQuotaAddon(env.project);
  const items: ImportItem[] = [];
  const errors: ImportError[] = [];
  // The units are counted, not kept: apply plans them again, a slice at a time (Sink).
  let total = 0;
  let creating = 0;
  await walk({ projectId, envId, doc, env }, ctx, {
    record: (kind, name, action, detail) => items.push({ kind, name, action, ...(detail ? { detail } : {}) }) - 1,
    error: (e) => void errors.push(e),
    units: async (us) => {
      total += us.length;
      creating += us.filter((u) => u.create?.kind === 'service').length;
    },
    close: async () => {},
  });

  // The service limit, for the whole import, per project and per environment (SPEC "Limits" 3).
  const max = quotaOf(plan, SERVICES_QUOTA, addon);
  if (creating && max !== null) {
    const projectCount = Number(env.project.service_count ?? 0);
    const envCount = Number(env.environment.service_count ?? 0);
    if (projectCount + creating > max || envCount + creating > max) {
      errors.push({ path: '/spec/services', line: null, message: String(quotaReached(plan, SERVICES_QUOTA, max).detail) });
    }
  }
  return { report: { summary: summarize(items, errors), items, errors }, projectId, environmentId: envId, plan, addon, connectionsVersion: env.connectionsVersion, total, source: { document: doc, env } };
}

/**
 * Where the walk of a document hands what it plans. Planning keeps the report and counts the units;
 * applying writes the units (the report's indices come again in the same order) and ignores the rest.
 */
interface Sink {
  /** Records a report item; returns its index. */
  record(kind: string, name: string, action: ImportAction, detail?: string): number;
  error(e: ImportError): void;
  /** Units planned, in document order (a slice at a time). */
  units(units: Unit[]): Promise<void>;
  /** No unit of this phase or an earlier one comes any more. */
  close(phase: number): Promise<void>;
}

/** Units per slice of the document handed to the sink (apply writes them before planning on). */
const SLICE = 250;

/**
 * Plans every entity of the document against the environment as read, in document order, phase
 * by phase (groups, networks, floors, services, links, connections). Deterministic for a given
 * document and environment, apart from the ids of new items (each walk makes its own, used
 * consistently within it): planning and applying walk it once each.
 */
async function walk(input: { projectId: string; envId: string; doc: EnvironmentDocument; env: EnvironmentContents }, ctx: AppContext, sink: Sink): Promise<void> {
  const { projectId, envId, doc, env } = input;
  const spec = doc.spec;
  const units: Unit[] = [];
  const envKey = keys.environment(projectId, envId);
  const envGone = ENV_NOT_IN_PROJECT;
  /** Runs `plan` over `xs`, handing the units on every SLICE entities (once a slice's units are complete: callers amend the unit they just planned). */
  const each = async <T>(xs: T[], plan: (x: T, i: number) => void) => {
    for (let i = 0; i < xs.length; i++) {
      plan(xs[i], i);
      if (i % SLICE === SLICE - 1 && units.length) await sink.units(units.splice(0));
    }
    if (units.length) await sink.units(units.splice(0));
  };

  const record = sink.record.bind(sink);
  const ambiguous = (path: Path, kind: string, name: string, what: string, n: number) => {
    sink.error({ path: pointer(path), line: null, message: `${n} ${what} named '${name}' exist in the environment: the import cannot tell which one is meant (rename one first)` });
    record(kind, name, 'error', 'ambiguous name in the environment');
  };
  /** Create or update (only what differs) or unchanged; the unit planned, if any. */
  const planEntity = (
    kind: string, name: string, phase: number, existing: Record<string, unknown> | undefined, wanted: Record<string, unknown>,
    create: () => Unit['create'], key: () => Key, gone: string, extra: Partial<Unit> = {},
  ): Unit | undefined => {
    if (!existing) {
      return units[units.push({ item: record(kind, name, 'create'), phase, create: create(), guards: [], counters: [], ...extra }) - 1];
    }
    const changes = changed(existing, wanted);
    if (!Object.keys(changes).length) {
      record(kind, name, 'unchanged');
      return undefined;
    }
    const audit = { id: String(existing.id), head: (existing.audit_head as string | undefined) ?? null, before: Object.fromEntries(Object.keys(changes).map((k) => [k, existing[k] ?? null])) };
    return units[units.push({ item: record(kind, name, 'update', `changed: ${Object.keys(changes).join(', ')}`), phase, update: { key: key(), changes, gone, audit }, guards: [], counters: [], ...extra }) - 1];
  };
  /** An update of a listed entity also writes its listing (issue 26), exact through the condition on the listed fields it does not change. */
  const withListing = <T extends Listable>(unit: Unit | undefined, listing: Listing<T>, existing: T | undefined) => {
    const changes = unit?.update?.changes as Partial<T> | undefined;
    if (!unit?.update || !existing || !changes || !listing.touches(changes)) return;
    unit.update.listing = { steps: listing.steps(existing, { ...existing, ...changes }), asRead: listing.asRead(existing) };
  };

  // Groups and subgroups (phases 0 and 1).
  const groupsByName = byName(env.groups, (g) => g.name);
  const groupId = new Map<string, string>();
  const subgroupId = new Map<string, string>();
  await each(spec.groups, (g) => {
    const existing = groupsByName.get(nameKey(g.name))?.[0];
    const id = existing?.id ?? ctx.ids.newId();
    groupId.set(nameKey(g.name), id);
    const wanted = { name: g.name, description: g.description ?? null };
    planEntity(KIND.group, g.name, 0, existing as unknown as Record<string, unknown>, wanted,
      () => ({ kind: 'group', fields: { id, project_id: projectId, environment_id: envId, ...wanted, subgroup_count: 0, deleted_at: null } }),
      () => keys.group(projectId, envId, id), `Group '${g.name}' was removed during the import`);
    const subsByName = byName(env.subgroups.filter((s) => existing && s.group_id === existing.id), (s) => s.name);
    for (const s of g.subgroups ?? []) {
      const found = subsByName.get(nameKey(s.name))?.[0];
      const sid = found?.id ?? ctx.ids.newId();
      subgroupId.set(`${nameKey(g.name)}>${nameKey(s.name)}`, sid);
      const sw = { name: s.name, description: s.description ?? null };
      planEntity(KIND.subgroup, `${g.name}/${s.name}`, 1, found as unknown as Record<string, unknown>, sw,
        () => ({ kind: 'subgroup', fields: { id: sid, project_id: projectId, environment_id: envId, group_id: id, ...sw, deleted_at: null } }),
        () => keys.subgroup(projectId, envId, sid), `Subgroup '${g.name}/${s.name}' was removed during the import`,
        found ? {} : { counters: [{ key: keys.group(projectId, envId, id), counter: 'subgroup_count', units: 1, whileLive: `Group '${g.name}' was removed during the import`, reference: true }] });
    }
  });
  await sink.close(1);

  // Networks (phase 2), before the services and floors attached to them.
  const networksByName = byName(env.networks, (n) => n.name);
  const networkId = new Map<string, string>();
  await each(spec.networks, (n) => {
    const existing = networksByName.get(nameKey(n.name))?.[0];
    const id = existing?.id ?? ctx.ids.newId();
    networkId.set(nameKey(n.name), id);
    const wanted: Partial<Network> = { name: n.name, cidr: n.cidr, gateway: n.gateway ?? null, vlan_id: n.vlan_id ?? null, is_private: n.is_private ?? true, description: n.description ?? null };
    withListing(planEntity(KIND.network, n.name, 2, existing, wanted,
      () => ({ kind: 'network', fields: { id, project_id: projectId, environment_id: envId, ...wanted } }),
      () => keys.network(projectId, envId, id), `Network '${n.name}' was removed during the import`), networkListing, existing);
  });
  await sink.close(2);
  const liveNetworkIds = new Set(env.networks.map((n) => n.id));
  /** A holder's attachments: the networks of its entry (none without one), as ids; guards keep them live. */
  const entries = new Map(spec.network_attachments.map((a) => [a.service ? `service>${nameKey(a.service)}` : `floor>${nameKey(a.service_floor!)}`, a.networks]));
  const attachmentsOf = (holder: string) => {
    const names = entries.get(holder) ?? [];
    return {
      ids: names.map((n) => networkId.get(nameKey(n))!),
      guards: names.map((n) => ({ key: keys.network(projectId, envId, networkId.get(nameKey(n))!), gone: `Network '${n}' was removed during the import` })),
    };
  };

  // Floors (phase 3).
  const floorsByName = byName(env.floors, (f) => f.hostname);
  const floorId = new Map<string, string>();
  await each(spec.service_floors, (f, i) => {
    const host = f.hostname!;
    const matches = floorsByName.get(nameKey(host)) ?? [];
    if (matches.length > 1) return ambiguous(['spec', 'service_floors', i], KIND.floor, host, 'service floors', matches.length);
    const existing = matches[0];
    const id = existing?.id ?? ctx.ids.newId();
    floorId.set(nameKey(host), id);
    const attached = attachmentsOf(`floor>${nameKey(host)}`);
    const wanted: Partial<Floor> = {
      floor_type: f.type, hostname: host, provider: f.provider ?? null, provider_region: f.provider_region ?? null, provider_zone: f.provider_zone ?? null,
      provider_instance_id: f.provider_instance_id ?? null, ip_address: f.ip_address ?? null, ip_addresses: f.ip_addresses ?? [], cpu: f.cpu ?? null,
      memory_mb: f.memory_mb ?? null, storage_gb: f.storage_gb ?? null, instances: f.instances ?? null, tags: f.tags ?? [],
    };
    if (!existing || !sameSet(existing.network_ids.filter((n) => liveNetworkIds.has(n)), attached.ids)) wanted.network_ids = attached.ids;
    withListing(planEntity(KIND.floor, host, 3, existing, wanted,
      () => ({ kind: 'floor', fields: { id, project_id: projectId, environment_id: envId, ...wanted } }),
      () => keys.floor(projectId, envId, id), `Service floor '${host}' was removed during the import`, { guards: attached.guards }), floorListing, existing);
  });
  await sink.close(3);

  // Services (phase 4): references resolved to ids, the counters with the limit on creates.
  const servicesByName = byName(env.services, (s) => s.name);
  const serviceId = new Map<string, string>();
  await each(spec.services, (s, i) => {
    const matches = servicesByName.get(nameKey(s.name)) ?? [];
    if (matches.length > 1) return ambiguous(['spec', 'services', i], KIND.service, s.name, 'services', matches.length);
    const existing = matches[0];
    const id = existing?.id ?? ctx.ids.newId();
    serviceId.set(nameKey(s.name), id);
    const refs = {
      service_floor_id: s.floor ? floorId.get(nameKey(s.floor)) ?? null : null,
      group_id: s.group ? groupId.get(nameKey(s.group)) ?? null : null,
      subgroup_id: s.group && s.subgroup ? subgroupId.get(`${nameKey(s.group)}>${nameKey(s.subgroup)}`) ?? null : null,
    };
    if (s.floor && !refs.service_floor_id) {
      // Its floor is ambiguous in the environment (reported there): leave the service alone too.
      record(KIND.service, s.name, 'error', `its floor '${s.floor}' is ambiguous`);
      return;
    }
    const attached = attachmentsOf(`service>${nameKey(s.name)}`);
    const wanted: Partial<Service> = { name: s.name, ...refs, ...serviceValues(s) };
    if (!existing || !sameSet(existing.network_ids.filter((n) => liveNetworkIds.has(n)), attached.ids)) wanted.network_ids = attached.ids;
    const guards = [
      ...attached.guards,
      ...(refs.service_floor_id ? [{ key: keys.floor(projectId, envId, refs.service_floor_id), gone: `Service floor '${s.floor}' was removed during the import`, edge: true }] : []),
      ...(refs.group_id ? [{ key: keys.group(projectId, envId, refs.group_id), gone: `Group '${s.group}' was removed during the import` }] : []),
      ...(refs.subgroup_id ? [{ key: keys.subgroup(projectId, envId, refs.subgroup_id), gone: `Subgroup '${s.group}/${s.subgroup}' was removed during the import` }] : []),
    ];
    const unit = planEntity(KIND.service, s.name, 4, existing, wanted,
      () => ({ kind: 'service', fields: { id, owner_user_id: env.project.owner_id, project_id: projectId, environment_id: envId, ...wanted } }),
      () => keys.service(projectId, envId, id), `Service '${s.name}' was removed during the import`,
      {
        guards,
        counters: existing ? [] : [
          { key: keys.project(projectId), counter: 'service_count', units: 1, serviceQuota: true },
          { key: envKey, counter: 'service_count', units: 1, serviceQuota: true, whileLive: envGone },
        ],
      });
    if (unit?.update && ['service_floor_id', 'group_id', 'subgroup_id'].some((k) => k in unit.update!.changes)) unit.update.hints = { id, ...refs };
    withListing(unit, serviceListing, existing);
  });
  await sink.close(4);

  // Links (phase 5): a pair not linked yet is created.
  const linked = new Set(env.links.map((l) => `${l.from_service_id}>${l.to_service_id}`));
  await each(spec.service_links, (l) => {
    const name = `${l.from} -> ${l.to}`;
    const from = serviceId.get(nameKey(l.from));
    const to = serviceId.get(nameKey(l.to));
    if (!from || !to) {
      record(KIND.link, name, 'error', 'a service it joins is ambiguous');
      return;
    }
    if (linked.has(`${from}>${to}`)) {
      record(KIND.link, name, 'unchanged');
      return;
    }
    linked.add(`${from}>${to}`);
    units.push({
      item: record(KIND.link, name, 'create'), phase: 5,
      create: { kind: 'link', fields: { id: ctx.ids.newId(), project_id: projectId, environment_id: envId, from_service_id: from, to_service_id: to } },
      guards: [from, to].map((sid) => ({ key: keys.service(projectId, envId, sid), gone: `Service of link '${name}' was removed during the import`, edge: true })),
      counters: [],
    });
  });
  await sink.close(5);

  // Connections (phase 6): on their own, and chains and hubs with their first members; members
  // beyond a new chain's first transaction, or joining a chain of the environment, in phase 7.
  const endOf = (e: DocumentConnectionEnd) => (e.service ? { type: 'service' as const, id: serviceId.get(nameKey(e.service)) } : { type: 'floor' as const, id: floorId.get(nameKey(e.service_floor!)) });
  const resolve = (c: DocumentConnection): ConnectionSpec | undefined => {
    const [a, b] = [endOf(c.a), endOf(c.b)];
    return a.id && b.id ? { a_type: a.type, a_id: a.id, b_type: b.type, b_id: b.id, direction: c.direction, name: c.name ?? null } : undefined;
  };
  const existingConnection = new Map(env.connections.map((c) => [pairKey(c), c]));
  const liveChains = new Map(env.chains.map((c) => [c.id, c]));
  const endGuards = (c: ConnectionSpec, label: string) =>
    ([[c.a_type, c.a_id], [c.b_type, c.b_id]] as const).map(([type, id]) => ({ key: entityKey(type, projectId, envId, id), gone: `An end of connection '${label}' was removed during the import`, edge: true }));
  const newConnection = (c: ConnectionSpec, chain: { id: string; group_kind: string } | null, position: number) => ({
    id: ctx.ids.newId(), project_id: projectId, environment_id: envId, ...c, chain_id: chain?.id ?? null, group_kind: chain?.group_kind ?? null, position, deleted_at: null,
  });
  /** A matched connection: its name updated, or unchanged. */
  const planMatched = (existing: Connection, c: ConnectionSpec, label: string) =>
    planEntity(KIND.connection, label, 6, existing, { name: c.name }, () => undefined, () => keys.connection(projectId, envId, existing.id), `Connection '${label}' was removed during the import`);
  const groupedDifferently = (path: Path, kind: string, label: string, how: string) => {
    sink.error({ path: pointer(path), line: null, message: `Connection '${label}' ${how} in the environment: an import does not regroup connections (change the document or the environment to match)` });
    record(kind, label, 'error', 'grouped differently in the environment');
  };
  const grouping = (c: Connection | undefined) => (c?.chain_id ? `is in a ${liveChains.get(c.chain_id)?.group_kind ?? 'chain'}` : 'stands on its own');

  await each(spec.connections, (c, i) => {
    const label = connectionLabel(c);
    const resolved = resolve(c);
    if (!resolved) return void record(KIND.connection, label, 'error', 'an entity it joins is ambiguous');
    const existing = existingConnection.get(pairKey(resolved));
    if (existing?.chain_id) return groupedDifferently(['spec', 'connections', i], KIND.connection, label, grouping(existing));
    if (existing) return planMatched(existing, resolved, label);
    units.push({
      item: record(KIND.connection, label, 'create'), phase: 6,
      create: { kind: 'connection', fields: newConnection(resolved, null, 0) }, guards: endGuards(resolved, label), counters: [],
    });
  });

  await each(spec.connection_groups, (g, i) => {
    const labels = g.connections.map(connectionLabel);
    const groupLabel = `${g.group_kind} of ${labels.length}: ${labels[0]}${labels.length > 1 ? ', ...' : ''}`;
    const resolved = g.connections.map(resolve);
    if (resolved.some((c) => !c)) return void record(KIND.chain, groupLabel, 'error', 'an entity it joins is ambiguous');
    const specs = resolved as ConnectionSpec[];
    const matched = specs.map((c) => existingConnection.get(pairKey(c)));
    // The chain its matched members are in: one live chain of the same kind, or none matched at all.
    const held = [...new Set(matched.filter((m) => m).map((m) => m!.chain_id))];
    const chain = held.length === 1 && held[0] ? liveChains.get(held[0]) : undefined;
    if (held.length && (!chain || chain.group_kind !== g.group_kind)) {
      const j = matched.findIndex((m) => m);
      return groupedDifferently(['spec', 'connection_groups', i, 'connections', j], KIND.chain, labels[j], grouping(matched[j]));
    }
    const adding = matched.filter((m) => !m).length;
    if (chain && chain.connection_count + adding > MAX_CHAIN_CONNECTIONS) {
      sink.error({ path: pointer(['spec', 'connection_groups', i]), line: null, message: `${CHAIN_FULL}: its ${chain.group_kind} in the environment has ${chain.connection_count}, the document adds ${adding}` });
      return void record(KIND.chain, groupLabel, 'error', 'the chain would be full');
    }
    const target = chain ?? { id: ctx.ids.newId(), group_kind: g.group_kind };
    const chainKey = keys.connectionChain(projectId, envId, target.id);
    const groupItem = record(KIND.chain, groupLabel, chain ? 'unchanged' : 'create');
    // A new chain is written with as many members as a batch holds (one transaction); the rest join it after.
    const first: { item: number; fields: Record<string, unknown>; guards: Unit['guards'] }[] = [];
    specs.forEach((c, j) => {
      if (matched[j]) return planMatched(matched[j]!, c, labels[j]);
      const item = record(KIND.connection, labels[j], 'create');
      const fields = newConnection(c, target, j);
      if (!chain && first.length < MAX_BATCH_CONNECTIONS) return void first.push({ item, fields, guards: endGuards(c, labels[j]) });
      units.push({
        item, phase: 7, create: { kind: 'connection', fields }, guards: endGuards(c, labels[j]),
        counters: [{ key: chainKey, counter: 'connection_count', units: 1, whileLive: `The ${g.group_kind} of '${labels[j]}' was removed during the import`, max: { value: MAX_CHAIN_CONNECTIONS, full: CHAIN_FULL }, reference: true }],
      });
    });
    if (!chain) {
      units.push({
        item: groupItem, also: first.map((m) => m.item), phase: 6,
        create: { kind: 'chain', fields: { id: target.id, project_id: projectId, environment_id: envId, group_kind: g.group_kind, connection_count: first.length, deleted_at: null }, members: first.map((m) => m.fields) },
        guards: first.flatMap((m) => m.guards), counters: [],
      });
    }
  });
  await sink.close(7);
}

// ---------------------------------------------------------------------------------------------
// Apply.

const TRANSACTION_ITEMS = 100;

/**
 * Who an import's entries name and how long its update entries are kept (issue 18): the account that
 * started the import, the import's id on every entry it writes, the owner's plan's retention.
 */
export interface ImportAudit {
  importId: string;
  actor: AuditActor;
  days: number | null;
}
/** The audit log's name of each kind an import writes. */
const AUDITED_AS: Record<CreateKind, string> = {
  group: 'group', subgroup: 'subgroup', network: 'network', floor: 'floor', service: 'service', link: 'link', connection: 'connection', chain: 'chain',
};
const KIND_OF_REPORT: Record<string, string> = {
  group: 'group', subgroup: 'subgroup', service_floor: 'floor', network: 'network', service: 'service', service_link: 'link', service_connection: 'connection',
};
/** What an entry shows of an imported entity: its fields as its readers see them (no internal ones). */
const shownOf = ({ network_ids: _n, subgroup_count: _s, created_at: _c, updated_at: _u, deleted_at: _d, audit_head: _h, ...rest }: Record<string, unknown>) => rest;

/** The writes of a unit's own items (nothing another unit of its phase touches), with the unit's audit entry. */
function unitWrites(u: Unit, now: string, ctx: AppContext, plan: Pick<ImportPlan, 'projectId' | 'environmentId' | 'report'>, audit?: ImportAudit): TransactStep[] {
  const where = { project_id: plan.projectId, environment_id: plan.environmentId };
  if (u.update) {
    const type = KIND_OF_REPORT[plan.report.items[u.item]?.kind ?? ''] ?? 'service';
    const entry = audit && u.update.audit
      ? changeAudit(ctx, type, 'update', { id: u.update.audit.id, ...where, audit_head: u.update.audit.head }, { before: shownOf(u.update.audit.before), after: shownOf(u.update.changes) }, audit.days, {
        actor: audit.actor, importId: audit.importId,
      })
      : undefined;
    const steps = [
      setFieldsStep(u.update.key, { ...u.update.changes, updated_at: now, audit_head: entry?.head }, conflict(u.update.gone), u.update.listing?.asRead),
      ...(u.update.listing?.steps ?? []),
      ...(entry?.steps ?? []),
    ];
    if (u.update.hints) steps.push(serviceHintsStep(u.update.hints.id, u.update.hints as unknown as Service));
    return steps;
  }
  const stamp = (fields: Record<string, unknown>): Record<string, unknown> => ({ ...fields, created_at: now, updated_at: now });
  const stamped = stamp(u.create!.fields);
  const entry = (shown: Record<string, unknown>) =>
    audit ? creationAudit(ctx, AUDITED_AS[u.create!.kind], { id: String(stamped.id), ...where }, shown, { actor: audit.actor, importId: audit.importId }) : [];
  const created = u.create!.kind === 'connection' || u.create!.kind === 'chain' ? [] : entry(shownOf(stamped));
  switch (u.create!.kind) {
    case 'group': return [...newGroupSteps(stamped as unknown as Group), ...created];
    case 'subgroup': return [...newSubgroupSteps(stamped as unknown as Subgroup), ...created];
    case 'network': return [...newNetworkSteps(networkEntity.create(stamped as never)), ...created];
    case 'floor': return [...newFloorSteps(floorEntity.create(stamped as never)), ...created];
    case 'service': return [...newServiceSteps(serviceEntity.create(stamped as never)), ...created];
    case 'link': return [...newLinkSteps(linkEntity.create(stamped as never)), ...created];
    case 'connection': {
      const connection = connectionEntity.create(stamped as never);
      return [...putConnectionSteps(connection), ...entry(auditedConnection(connection))];
    }
    case 'chain': {
      const chain = chainEntity.create(stamped as never);
      const members = (u.create!.members ?? []).map((m) => connectionEntity.create(stamp(m) as never));
      // One entry for the chain and its first members, as a batch writes.
      return [...putChainSteps(chain), ...members.flatMap(putConnectionSteps), ...entry(chainShown(chain, members))];
    }
  }
}


/**
 * A create's write of a new key with no refusal of its own (the entity, its lookup and listings,
 * its audit entry: keys made from new ids): a staged chunk writes these by BatchWriteItem. Puts
 * with a refusal (name claims) and every other step stay in its transactions.
 */
const freshPut = (s: TransactStep) => Boolean(s.Put) && !s.failWith && (!s.Put!.ConditionExpression || s.Put!.ConditionExpression === IF_ABSENT.ConditionExpression);

/** Items a staged chunk writes by BatchWriteItem at most (its journal lists their keys: some 130 KB). */
const STAGED_ITEMS = 2000;
/** Chunks of a phase in flight at once: the next one's items are written while the one before closes. */
const CHUNKS_IN_FLIGHT = 2;
/** Thrown into a chunk in flight when one before it stopped the import: it is undone and not applied. */
const STOPPED = new Error('an earlier chunk stopped the import');

interface Built {
  /** A chunk of updates: one transaction. */
  steps?: TransactStep[];
  /** A chunk of creates: a staged write (db/staged-write.ts): its conditions in transactions around a BatchWriteItem of its new items. */
  staged?: Pick<StagedWrite, 'open' | 'items' | 'close' | 'undo'>;
  now: string;
  /** It writes connections, so it moves the environment's connections_version on. */
  movesConnections: boolean;
  /** Refusals of the counter steps that need a read to be explained (the environment gone, or its limit). */
  diagnose: Map<DomainError, () => Promise<DomainError>>;
}

/**
 * One chunk's writes: the units' own writes, each shared item once (counters summed, with their
 * limit; else a liveness guard). A chunk of creates is staged: its counters and claims open it, its
 * new items follow by BatchWriteItem, and its guards (what the items refer to, the counters' items
 * among them) close it once the items are there, so a removal racing the items is still refused.
 */
function build(chunk: Unit[], own: TransactStep[], plan: ImportPlan, now: string, connectionsVersion: number): Built {
  const { projectId, environmentId: envId } = plan;
  const staged = chunk.every((u) => u.create);
  const diagnose: Built['diagnose'] = new Map();
  const counters = new Map<string, CounterMove>();
  for (const c of chunk.flatMap((u) => u.counters)) {
    const id = keyId(c.key);
    const known = counters.get(id);
    if (known) Object.assign(known, { units: known.units + c.units, reference: known.reference || c.reference });
    else counters.set(id, { ...c });
  }
  const counterSteps = [...counters.values()].map((c) => {
    const moves = { [c.counter]: c.units };
    const step = c.serviceQuota && plan.plan
      ? takeQuotaStep(c.key, c.counter, plan.plan, SERVICES_QUOTA, plan.addon, c.units)
      : counterStep(c.key, c.reference ? withReference(moves) : moves, c.max ? { max: { [c.counter]: c.max.value }, failWith: invalid(c.max.full) } : {});
    if (!c.whileLive) return step;
    const failed = concurrentChange();
    const gone = invalid(c.whileLive);
    const limit = step.failWith;
    diagnose.set(failed, async () => (isLive(await getItem(c.key)) && limit ? limit : gone));
    return whileLiveStep(step, failed);
  });
  const envKey = keys.environment(projectId, envId);
  // Connections are created against the list the plan read: the version it read must still be the
  // environment's (another write could have made one of them a duplicate), then it moves on.
  const movesConnections = chunk.some((u) => u.create?.kind === 'connection' || u.create?.kind === 'chain');
  const checks: TransactStep[] = [];
  if (movesConnections) {
    const failed = concurrentChange();
    checks.push(connectionsVersionStep(projectId, envId, connectionsVersion, failed));
    diagnose.set(failed, async () => (isLive(await getItem(envKey)) ? conflict(CONNECTIONS_CHANGED) : invalid(ENV_NOT_IN_PROJECT)));
  } else if (staged || !counters.has(keyId(envKey))) checks.push(envLiveCheck(projectId, envId));
  // Guards: in a transaction, a counter's own condition keeps its item live; a staged chunk checks them again when it closes.
  const guarded = new Set([keyId(envKey), ...(staged ? [] : counters.keys())]);
  const guards = [
    ...chunk.flatMap((u) => u.guards.map((g) => ({ key: g.key, refusal: () => conflict(g.gone) }))),
    ...(staged ? [...counters.values()].flatMap((c) => (c.whileLive ? [{ key: c.key, refusal: () => invalid(c.whileLive!) }] : [])) : []),
  ];
  const edgeEnds = new Set(chunk.flatMap((u) => u.guards.filter((g) => g.edge).map((g) => keyId(g.key))));
  for (const g of guards) {
    if (guarded.has(keyId(g.key))) continue;
    guarded.add(keyId(g.key));
    checks.push(edgeEnds.has(keyId(g.key)) ? referenceStep(g.key, g.refusal()) : stillLiveStep(g.key, g.refusal()));
  }
  if (!staged) return { steps: [...own, ...counterSteps, ...checks], now, diagnose, movesConnections };
  return {
    staged: {
      open: [...own.filter((s) => !freshPut(s)), ...counterSteps],
      items: own.filter(freshPut).map((s) => s.Put!.Item!),
      close: checks,
      undo: [...counters.values()].map((c) => counterStep(c.key, { [c.counter]: -c.units })),
    },
    now, diagnose, movesConnections,
  };
}

/**
 * Writes units as they come, packed in order into chunks: creates (staged: at most STAGED_ITEMS new
 * items, and transactions of at most 100 items for their conditions) or updates (one transaction of
 * at most 100 items), a phase never sharing one and committing before the next starts (units of a
 * later phase wait until their phase is open). Two chunks of a phase are in flight while the next
 * is packed and built, closing in order; once one is refused, nothing more is written (a chunk in
 * flight is undone) and every later unit's items are marked not applied.
 */
class Writer {
  private open = 0;
  private readonly waiting = new Map<number, Unit[]>();
  private chunk: Unit[] = [];
  /** The packed units' own writes, in order. */
  private writes: TransactStep[] = [];
  /** Transaction items the packed chunk takes (its own conditional writes and shared items), and items it writes by BatchWriteItem when staged. */
  private size = 0;
  private batched = 0;
  private shared = new Set<string>();
  /** Whose staged writes these are (the import's id: its retry undoes what an interrupted run left), and their journals' count. */
  private readonly owner: string;
  private journals = 0;
  /** The chunks in flight, oldest first (each settles after the one before: they close in order), and their phase. */
  private inFlight: Promise<void>[] = [];
  private flightPhase = -1;
  /** What a chunk in flight (or its progress callback) threw: thrown again by the next commit. */
  private failure: { error: unknown } | undefined;
  private connectionsVersion: number;
  private done = 0;
  stopped = false;
  readonly errors: ImportError[] = [];
  readonly notApplied = new Set<number>();

  constructor(
    private readonly plan: ImportPlan,
    private readonly ctx: AppContext,
    private readonly onProgress?: (done: number, total: number) => void | Promise<void>,
    private readonly audit?: ImportAudit,
    private readonly stagedItems = STAGED_ITEMS,
  ) {
    this.connectionsVersion = plan.connectionsVersion;
    this.owner = audit?.importId ?? ctx.ids.newId();
  }

  async units(units: Unit[]) {
    for (const u of units) {
      if (u.phase === this.open) await this.add(u);
      else if (this.waiting.has(u.phase)) this.waiting.get(u.phase)!.push(u);
      else this.waiting.set(u.phase, [u]);
    }
  }

  async close(phase: number) {
    while (this.open <= phase) {
      this.open++;
      const waiting = this.waiting.get(this.open) ?? [];
      this.waiting.delete(this.open);
      for (const u of waiting) await this.add(u);
    }
  }

  /** Commits what is packed and waits for every transaction. */
  async finish() {
    await this.commit();
    await this.settled();
    for (const u of [...this.waiting.values()].flat()) this.markNotApplied([u]);
  }

  private markNotApplied(units: Unit[]) {
    for (const u of units) for (const i of [u.item, ...(u.also ?? [])]) this.notApplied.add(i);
  }

  private async add(u: Unit) {
    if (this.stopped) return this.markNotApplied([u]);
    const sharedKeys = [...new Set([...u.guards.map((g) => g.key), ...u.counters.map((c) => c.key)].map(keyId))];
    // Built once, stamped with the time it is packed. A create is staged: its fresh writes go by BatchWriteItem.
    const writes = unitWrites(u, this.ctx.clock.now().toISOString(), this.ctx, this.plan, this.audit);
    const batched = u.create ? writes.filter(freshPut).length : 0;
    const own = writes.length - batched;
    // Two items are kept: the environment's guard (or its counter, or the connections version) and a staged chunk's journal.
    const fits = () => this.size + own + sharedKeys.filter((k) => !this.shared.has(k)).length + 2 <= TRANSACTION_ITEMS && this.batched + batched <= this.stagedItems;
    if (this.chunk.length && (this.chunk[0].phase !== u.phase || !this.chunk[0].create !== !u.create || !fits())) {
      await this.commit();
      if (this.stopped) return this.markNotApplied([u]);
    }
    const fresh = sharedKeys.filter((k) => !this.shared.has(k));
    fresh.forEach((k) => this.shared.add(k));
    this.size += own + fresh.length;
    this.batched += batched;
    this.chunk.push(u);
    this.writes.push(...writes);
  }

  /** Builds the packed chunk's transaction and sends it once the one in flight has committed. */
  private async commit() {
    const chunk = this.chunk;
    const writes = this.writes;
    this.chunk = [];
    this.writes = [];
    this.size = 0;
    this.batched = 0;
    this.shared = new Set();
    if (!chunk.length) return;
    const built = build(chunk, writes, this.plan, this.ctx.clock.now().toISOString(), this.connectionsVersion);
    if (built.movesConnections) this.connectionsVersion++;
    // A phase starts once the one before has closed (parents before children).
    if (chunk[0].phase !== this.flightPhase) await this.settled();
    while (this.inFlight.length >= CHUNKS_IN_FLIGHT) await this.inFlight.shift();
    if (this.failure) await this.settled();
    if (this.stopped) return this.markNotApplied(chunk);
    this.flightPhase = chunk[0].phase;
    // Caught here, thrown by the next commit: a rejection nobody awaits yet would end the process.
    this.inFlight.push(this.send(chunk, built, this.inFlight.at(-1)).catch((error) => void (this.failure ??= { error })));
  }

  private async settled() {
    while (this.inFlight.length) await this.inFlight.shift();
    if (this.failure) throw this.failure.error;
  }

  /** Writes a chunk; it closes (commits) only after the chunk before it has, and not at all once the import stopped. */
  private async send(chunk: Unit[], { steps, staged, now, diagnose }: Built, before?: Promise<void>) {
    const turn = async () => {
      await before;
      if (this.stopped || this.failure) throw STOPPED;
    };
    try {
      if (staged) await stagedWrite({ ...staged, journal: keys.stagedWrite(this.plan.projectId, this.plan.environmentId, this.owner, this.journals++), owner: this.owner, beforeClose: turn }, now);
      else await turn().then(() => transact(steps!));
    } catch (err) {
      if (err === STOPPED) return this.markNotApplied(chunk);
      if (!(err instanceof DomainError)) throw err;
      const refusal = diagnose.has(err) ? await diagnose.get(err)!() : err;
      this.errors.push({ path: '', line: null, message: String(refusal.detail) });
      this.stopped = true;
      this.markNotApplied(chunk);
      return;
    }
    this.done += chunk.length;
    await this.onProgress?.(this.done, this.plan.total);
  }
}

/**
 * Undoes the staged chunks an interrupted run of import `importId` left in its environment (its
 * retry runs this before planning again), and stale ones any stopped import left there.
 */
export const undoInterruptedImport = (projectId: string, envId: string, importId: string, now: Date) =>
  undoStagedWrites(projectId, keys.stagedWritePrefix(envId), importId, now);

/**
 * Applies a plan without errors: its units in order, in chunks; the service counters of each chunk
 * moved with the plan's limit before its items are written (so concurrent creates can never take
 * the import past the limit: the chunk is refused and the import stops with the limit's message).
 * A chunk of updates is one transaction; a chunk of creates is a staged write (db/staged-write.ts):
 * its counters and claims committed with a journal, its new items by BatchWriteItem, its guards
 * checked again as it closes, and the whole undone if anything refuses or fails in between.
 * `onProgress(done, total)` follows each committed chunk. What was committed stays (each chunk is
 * whole); planning again and applying finishes the work, as everything is matched by name. A plan
 * with errors writes nothing.
 *
 * The units are planned again from the plan's source a slice at a time and written as they come,
 * never all held at once (a 50,000-service import plans some 200,000 of them).
 */
export async function applyImport(
  plan: ImportPlan,
  ctx: AppContext,
  onProgress?: (done: number, total: number) => void | Promise<void>,
  audit?: ImportAudit,
  /** Items a chunk of creates writes by BatchWriteItem at most (tests make chunks small). */
  stagedItems = STAGED_ITEMS,
): Promise<ImportReport> {
  if (plan.report.errors.length || !plan.source) return plan.report;
  await onProgress?.(0, plan.total);
  const writer = new Writer(plan, ctx, onProgress, audit, stagedItems);
  let item = 0;
  await walk({ projectId: plan.projectId, envId: plan.environmentId, doc: plan.source.document, env: plan.source.env }, ctx, {
    record: () => item++,
    error: () => {},
    units: (units) => writer.units(units),
    close: (phase) => writer.close(phase),
  });
  await writer.finish();
  if (!writer.stopped) return plan.report;
  const items = plan.report.items.map((i, n) => (writer.notApplied.has(n) ? { ...i, action: 'error' as const, detail: 'not applied: the import stopped' } : i));
  return { summary: summarize(items, writer.errors), items, errors: writer.errors };
}
