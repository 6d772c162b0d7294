import { load } from 'js-yaml';
import { collect } from '../../../clients/typescript/src/paging.ts';
import { multipart, type InfracatClient } from '../../../clients/typescript/src/client.ts';
import { followJob } from '../../../clients/typescript/src/jobs.ts';
import { keys } from '#db/keys';
import { queryPartition } from '#db/query';
import { readItem } from '../../helpers/catalog.ts';
import type { Entry, Kind, Ledger } from './ledger.ts';
import type { Delivery } from './webhook-receiver.ts';
import type { Scope } from './workload.ts';

/** An item as a list shows it, reduced to what the ledger knows: its id, its unique name and the field updates change. */
interface Seen {
  id: string;
  name: string;
  value: string;
}
type State = Record<Kind, Seen[]>;

/** Each invariant's name and the violations it found (none when it holds). */
export type Checked = [invariant: string, violations: string[]][];

/** The state of an environment read through the API (faults off). */
async function readState(client: InfracatClient, projectId: string, envId: string): Promise<State> {
  const query = { project_id: projectId, environment_id: envId };
  const services = await collect(client.services(query, { pageSize: 1000 }));
  const floors = (await client.api.GET('/service-floors', { params: { query } })).data as {
    id: string;
    hostname: string;
    cpu?: number;
  }[];
  const networks = (await client.api.GET('/networks', { params: { query } })).data as {
    id: string;
    name: string;
    description?: string;
  }[];
  const connections = (await client.api.GET('/service-connections', { params: { query } })).data as {
    id: string;
    name?: string;
    direction: string;
  }[];
  return {
    service: services.map((s) => ({ id: s.id, name: s.name, value: String(s.version ?? '') })),
    floor: floors.map((f) => ({ id: f.id, name: f.hostname, value: String(f.cpu ?? '') })),
    network: networks.map((n) => ({ id: n.id, name: n.name, value: String(n.description ?? '') })),
    connection: connections.map((c) => ({ id: c.id, name: c.name ?? '', value: c.direction })),
  };
}

/** Acknowledged writes present as written, acknowledged deletes absent, no name twice, nothing the ledger never asked for. */
function compare(
  kind: Kind,
  seen: Seen[],
  entries: Entry[],
  where: string,
): { lost: string[]; back: string[]; dupes: string[]; stale: string[]; strangers: string[] } {
  const out = {
    lost: [] as string[],
    back: [] as string[],
    dupes: [] as string[],
    stale: [] as string[],
    strangers: [] as string[],
  };
  const byName = new Map<string, Seen[]>();
  for (const s of seen) byName.set(s.name, [...(byName.get(s.name) ?? []), s]);
  for (const [name, items] of byName)
    if (items.length > 1) out.dupes.push(`${where}: ${items.length} ${kind}s named ${name}`);
  const known = new Set(entries.map((e) => e.name));
  for (const s of seen)
    if (!known.has(s.name)) out.strangers.push(`${where}: ${kind} ${s.name} (${s.id}) was never written`);
  for (const e of entries) {
    const found = byName.get(e.name)?.[0];
    if (e.created === 'acked' && e.deleted === 'no') {
      if (!found) out.lost.push(`${where}: ${kind} ${e.name} (${e.id ?? 'imported'}) acknowledged, not found`);
      else if ((e.id && found.id !== e.id) || (found.value !== e.value && !e.maybeValues.has(found.value)))
        out.stale.push(`${where}: ${kind} ${e.name} reads ${found.value}, acknowledged ${e.value}`);
    }
    if (e.deleted === 'acked' && found) out.back.push(`${where}: ${kind} ${e.name} (${e.id}) deleted, still listed`);
  }
  return out;
}

export interface Checks {
  client: InfracatClient;
  ledger: Ledger;
  scopes: Scope[];
  deliveries: Delivery[];
  /** The soak's webhook: its delivery log is read from the table (bodies included). */
  webhookId: string;
}

/** Every invariant of the soak (docs/decisions/0136-the-soak.md), read through the API and the table once the faults are off. */
export async function checkInvariants({ client, ledger, scopes, deliveries, webhookId }: Checks): Promise<Checked> {
  const projectId = scopes[0].projectId;
  const found = {
    lost: [] as string[],
    back: [] as string[],
    dupes: [] as string[],
    stale: [] as string[],
    strangers: [] as string[],
  };
  const counters: string[] = [];
  const exports: string[] = [];
  const states = new Map<string, State>();
  let projectServices = 0;
  for (const scope of scopes) {
    for (const envId of [scope.envId, scope.importEnvId]) {
      const state = await readState(client, projectId, envId);
      states.set(envId, state);
      for (const kind of ['service', 'floor', 'network', 'connection'] as const) {
        const r = compare(
          kind,
          state[kind],
          ledger.entries.filter((e) => e.kind === kind && e.envId === envId),
          `env ${scope.index}${envId === scope.importEnvId ? ' (import)' : ''}`,
        );
        for (const k of Object.keys(found) as (keyof typeof found)[]) found[k].push(...r[k]);
      }
      const env = await readItem(keys.environment(projectId, envId));
      if (env?.service_count !== state.service.length)
        counters.push(
          `environment ${envId}: service_count ${env?.service_count}, ${state.service.length} services listed`,
        );
      projectServices += state.service.length;
    }
    exports.push(...(await exportMatches(client, projectId, scope.envId, states.get(scope.envId)!)));
  }
  const project = await readItem(keys.project(projectId));
  if (project?.service_count !== projectServices)
    counters.push(`project: service_count ${project?.service_count}, ${projectServices} services listed`);
  if (project?.env_count !== scopes.length * 2)
    counters.push(`project: env_count ${project?.env_count}, ${scopes.length * 2} environments made`);
  return [
    ['every write answered 2xx is present with what was written', [...found.lost, ...found.stale]],
    ['nothing deleted came back', found.back],
    ['no duplicates from retries', [...found.dupes, ...found.strangers]],
    ['each plan counter equals the items it counts', counters],
    ['one audit entry per acknowledged change', await auditMatches(client, projectId, ledger)],
    ['every event reached its subscriber, duplicates with the same webhook-id', webhooksMatch(ledger, deliveries)],
    [
      'every event the webhook subscribes to has a delivery in its log, succeeded or failed',
      await deliveryLogMatches(ledger, webhookId),
    ],
    ['an export equals the state read through the API', exports],
  ];
}

/** Entries per entity: at least its acknowledged changes, at most those plus the ones that got no answer. */
async function auditMatches(client: InfracatClient, projectId: string, ledger: Ledger): Promise<string[]> {
  const perEntity = new Map<string, string[]>();
  for await (const e of client.auditLog(projectId))
    perEntity.set(e.entity_id, [...(perEntity.get(e.entity_id) ?? []), e.action]);
  const out: string[] = [];
  for (const e of ledger.entries) {
    // A connection removed with its service is audited with the service.
    if (!e.id || e.kind === 'connection') continue;
    const n = perEntity.get(e.id)?.length ?? 0;
    if (n < e.ackedChanges || n > e.ackedChanges + e.uncertainChanges)
      out.push(
        `${e.kind} ${e.name}: ${n} audit entries (${perEntity.get(e.id)?.join(', ')}), ${e.ackedChanges} acknowledged changes, ${e.uncertainChanges} unanswered: ${e.history.join(', ')}`,
      );
  }
  return out;
}

/** Each acknowledged service change and floor creation reached the receiver; one webhook-id per event, the same body under it. */
function webhooksMatch(ledger: Ledger, deliveries: Delivery[]): string[] {
  const out: string[] = [];
  const bodies = new Map<string, string>();
  for (const d of deliveries) {
    if (bodies.has(d.webhookId) && bodies.get(d.webhookId) !== d.body)
      out.push(`webhook-id ${d.webhookId} delivered with two bodies`);
    bodies.set(d.webhookId, d.body);
  }
  const ids = (type: string, field: string, id: string) =>
    new Set(deliveries.filter((d) => d.type === type && d.data[field] === id).map((d) => d.webhookId)).size;
  for (const e of ledger.entries) {
    if (!e.id || e.created !== 'acked') continue;
    if (e.kind === 'service') {
      if (ids('service.created', 'service_id', e.id) !== 1)
        out.push(`service.created of ${e.name}: ${ids('service.created', 'service_id', e.id)} distinct events`);
      const updates = e.ackedChanges - 1 - (e.deleted === 'acked' ? 1 : 0);
      const got = ids('service.updated', 'service_id', e.id);
      if (got < updates || got > updates + e.uncertainChanges)
        out.push(`service.updated of ${e.name}: ${got} distinct events, ${updates} acknowledged updates`);
      if (e.deleted === 'acked' && ids('service.deleted', 'service_id', e.id) !== 1)
        out.push(`service.deleted of ${e.name}: ${ids('service.deleted', 'service_id', e.id)} distinct events`);
    }
    if (e.kind === 'floor' && ids('floor.created', 'service_floor_id', e.id) !== 1)
      out.push(`floor.created of ${e.name}: ${ids('floor.created', 'service_floor_id', e.id)} distinct events`);
  }
  return out;
}

/**
 * Every event the webhook should receive ends as a delivery in its log (succeeded or failed,
 * so redeliverable), never vanishes: one delivery per acknowledged service creation, update and delete
 * and floor creation, none still pending once every retry has run. Read from the table (the log's
 * bodies hold the event, which the API's list leaves out).
 */
async function deliveryLogMatches(ledger: Ledger, webhookId: string): Promise<string[]> {
  const log = (
    await queryPartition<{ id: string; status: string; body: string }>(
      keys.webhookDelivery(webhookId, '').PK,
      keys.webhookDeliveryPrefix,
    )
  ).map((d) => ({ ...d, event: JSON.parse(d.body) as { type: string; data: Record<string, unknown> } }));
  const out = log
    .filter((d) => d.status !== 'succeeded' && d.status !== 'failed')
    .map((d) => `delivery ${d.id} (${d.event.type}) still ${d.status}`);
  const count = (type: string, field: string, id: string) =>
    log.filter((d) => d.event.type === type && d.event.data[field] === id).length;
  for (const e of ledger.entries) {
    if (!e.id || e.created !== 'acked') continue;
    if (e.kind === 'service') {
      if (count('service.created', 'service_id', e.id) !== 1)
        out.push(`service.created of ${e.name}: ${count('service.created', 'service_id', e.id)} deliveries`);
      const updates = e.ackedChanges - 1 - (e.deleted === 'acked' ? 1 : 0);
      const got = count('service.updated', 'service_id', e.id);
      if (got < updates || got > updates + e.uncertainChanges)
        out.push(`service.updated of ${e.name}: ${got} deliveries, ${updates} acknowledged updates`);
      if (e.deleted === 'acked' && count('service.deleted', 'service_id', e.id) !== 1)
        out.push(`service.deleted of ${e.name}: ${count('service.deleted', 'service_id', e.id)} deliveries`);
    }
    if (e.kind === 'floor' && count('floor.created', 'service_floor_id', e.id) !== 1)
      out.push(`floor.created of ${e.name}: ${count('floor.created', 'service_floor_id', e.id)} deliveries`);
  }
  return out;
}

/** An export of the environment, downloaded through its signed link, holds what the API lists. */
async function exportMatches(
  client: InfracatClient,
  projectId: string,
  envId: string,
  state: State,
): Promise<string[]> {
  const { data: started } = await client.api.POST('/impex/export', {
    body: { project_id: projectId, environment_id: envId },
    bodySerializer: multipart,
  });
  const record = await followJob(client, started!.job_id, { pollMs: 200 });
  if (record.status !== 'succeeded' || !record.download_url) return [`export of ${envId}: ${record.status}`];
  const doc = load(await (await fetch(record.download_url)).text()) as {
    spec: {
      services: { name: string; version?: string }[];
      service_floors: { hostname: string; cpu?: number }[];
      networks: { name: string; description?: string }[];
      connections: { name?: string }[];
    };
  };
  const sorted = (xs: string[]) => JSON.stringify([...xs].sort());
  const out: string[] = [];
  const pairs: [string, string[], string[]][] = [
    [
      'services',
      doc.spec.services.map((s) => `${s.name}=${s.version ?? ''}`),
      state.service.map((s) => `${s.name}=${s.value}`),
    ],
    [
      'floors',
      doc.spec.service_floors.map((f) => `${f.hostname}=${f.cpu ?? ''}`),
      state.floor.map((f) => `${f.name}=${f.value}`),
    ],
    [
      'networks',
      doc.spec.networks.map((n) => `${n.name}=${n.description ?? ''}`),
      state.network.map((n) => `${n.name}=${n.value}`),
    ],
    ['connections', doc.spec.connections.map((c) => c.name ?? ''), state.connection.map((c) => c.name)],
  ];
  for (const [what, exported, listed] of pairs)
    if (sorted(exported) !== sorted(listed))
      out.push(`export of ${envId}: ${what} differ (${exported.length} exported, ${listed.length} listed)`);
  return out;
}
