import { keys } from '#db/keys';
import { invalid } from '#shared/errors';
import {
  CHAIN_FULL,
  entityKey,
  MAX_BATCH_CONNECTIONS,
  MAX_CHAIN_CONNECTIONS,
  pairKey,
  type Connection,
  type ConnectionSpec,
} from '#domain/catalog';
import type { DocumentConnection, DocumentConnectionEnd } from '../../document.ts';
import { pointer } from '../../parse.ts';
import { nameKey, type Path } from '../../problems.ts';
import { connectionLabel, KIND } from '../report.ts';
import type { Unit } from '../units.ts';
import type { WalkContext } from '../walk-context.ts';

/** The two ends of a connection, whichever is a. */
const endsKey = (c: Pick<ConnectionSpec, 'a_type' | 'a_id' | 'b_type' | 'b_id'>) =>
  [`${c.a_type}:${c.a_id}`, `${c.b_type}:${c.b_id}`].sort().join('|');
const REVERSED = { a_to_b: 'b_to_a', b_to_a: 'a_to_b', both: 'both', none: 'none' } as const;
/** `c`'s direction as written on `existing`, whose a may be c's b. */
const directionFrom = (existing: Connection, c: ConnectionSpec) =>
  existing.a_type === c.a_type && existing.a_id === c.a_id
    ? c.direction
    : REVERSED[c.direction as keyof typeof REVERSED];

/** Plans the document's connections, chains and hubs. */
export async function planConnections(w: WalkContext, serviceId: Map<string, string>, floorId: Map<string, string>) {
  const { projectId, envId, spec, env, ctx, sink, each, record, units, planEntity } = w;

  // Connections (phase 6): on their own, and chains and hubs with their first members; members
  // beyond a new chain's first transaction, or joining a chain of the environment, in phase 7.
  const endOf = (e: DocumentConnectionEnd) =>
    e.service
      ? { type: 'service' as const, id: serviceId.get(nameKey(e.service)) }
      : { type: 'floor' as const, id: floorId.get(nameKey(e.service_floor!)) };
  const resolve = (c: DocumentConnection): ConnectionSpec | undefined => {
    const [a, b] = [endOf(c.a), endOf(c.b)];
    return a.id && b.id
      ? { a_type: a.type, a_id: a.id, b_type: b.type, b_id: b.id, direction: c.direction, name: c.name ?? null }
      : undefined;
  };
  // A connection of the document is the one joining the same two ends (either way round): the one in
  // the same direction if there is one, else another of the pair not matched yet, whose direction
  // (and name) is then updated in place rather than a second connection created beside it.
  const exact = new Map(env.connections.map((c) => [pairKey(c), c]));
  const byEnds = new Map<string, Connection[]>();
  for (const c of env.connections) byEnds.set(endsKey(c), [...(byEnds.get(endsKey(c)) ?? []), c]);
  const taken = new Set<string>();
  const existingConnection = {
    get(c: ConnectionSpec): Connection | undefined {
      const found =
        exact.get(pairKey(c)) ??
        byEnds.get(endsKey(c))?.find((x) => !taken.has(x.id) && !documentPairs.has(pairKey(x)));
      if (found) taken.add(found.id);
      return found;
    },
  };
  /** The exact pairs the document names: a connection that is one of them is kept for it, never turned round for another. */
  const documentPairs = new Set(
    [...spec.connections, ...spec.connection_groups.flatMap((g) => g.connections)]
      .map(resolve)
      .flatMap((c) => (c ? [pairKey(c)] : [])),
  );
  const liveChains = new Map(env.chains.map((c) => [c.id, c]));
  const endGuards = (c: ConnectionSpec, label: string) =>
    (
      [
        [c.a_type, c.a_id],
        [c.b_type, c.b_id],
      ] as const
    ).map(([type, id]) => ({
      key: entityKey(type, projectId, envId, id),
      gone: `An end of connection '${label}' was removed during the import`,
      edge: true,
    }));
  const newConnection = (c: ConnectionSpec, chain: { id: string; group_kind: string } | null, position: number) => ({
    id: ctx.ids.newId(),
    project_id: projectId,
    environment_id: envId,
    ...c,
    chain_id: chain?.id ?? null,
    group_kind: chain?.group_kind ?? null,
    position,
    deleted_at: null,
  });
  /** A matched connection: its name and direction (as seen from its own ends) updated, or unchanged. */
  const planMatched = (existing: Connection, c: ConnectionSpec, label: string) =>
    planEntity(
      KIND.connection,
      label,
      6,
      existing,
      { name: c.name, direction: directionFrom(existing, c) },
      () => undefined,
      () => keys.connection(projectId, envId, existing.id),
      `Connection '${label}' was removed during the import`,
    );
  const groupedDifferently = (path: Path, kind: string, label: string, how: string) => {
    sink.error({
      path: pointer(path),
      line: null,
      message: `Connection '${label}' ${how} in the environment: an import does not regroup connections (change the document or the environment to match)`,
    });
    record(kind, label, 'error', 'grouped differently in the environment');
  };
  const grouping = (c: Connection | undefined) =>
    c?.chain_id ? `is in a ${liveChains.get(c.chain_id)?.group_kind ?? 'chain'}` : 'stands on its own';

  await each(spec.connections, (c, i) => {
    const label = connectionLabel(c);
    const resolved = resolve(c);
    if (!resolved) return void record(KIND.connection, label, 'error', 'an entity it joins is ambiguous');
    const existing = existingConnection.get(resolved);
    if (existing?.chain_id)
      return groupedDifferently(['spec', 'connections', i], KIND.connection, label, grouping(existing));
    if (existing) return planMatched(existing, resolved, label);
    units.push({
      item: record(KIND.connection, label, 'create'),
      phase: 6,
      create: { kind: 'connection', fields: newConnection(resolved, null, 0) },
      guards: endGuards(resolved, label),
      counters: [],
    });
  });

  await each(spec.connection_groups, (g, i) => {
    const labels = g.connections.map(connectionLabel);
    const groupLabel = `${g.group_kind} of ${labels.length}: ${labels[0]}${labels.length > 1 ? ', ...' : ''}`;
    const resolved = g.connections.map(resolve);
    if (resolved.some((c) => !c))
      return void record(KIND.chain, groupLabel, 'error', 'an entity it joins is ambiguous');
    const specs = resolved as ConnectionSpec[];
    const matched = specs.map((c) => existingConnection.get(c));
    // The chain its matched members are in: one live chain of the same kind, or none matched at all.
    const held = [...new Set(matched.filter((m) => m).map((m) => m!.chain_id))];
    const chain = held.length === 1 && held[0] ? liveChains.get(held[0]) : undefined;
    if (held.length && (!chain || chain.group_kind !== g.group_kind)) {
      const j = matched.findIndex((m) => m);
      return groupedDifferently(
        ['spec', 'connection_groups', i, 'connections', j],
        KIND.chain,
        labels[j],
        grouping(matched[j]),
      );
    }
    const adding = matched.filter((m) => !m).length;
    if (chain && chain.connection_count + adding > MAX_CHAIN_CONNECTIONS) {
      sink.error({
        path: pointer(['spec', 'connection_groups', i]),
        line: null,
        message: `${CHAIN_FULL}: its ${chain.group_kind} in the environment has ${chain.connection_count}, the document adds ${adding}`,
      });
      return void record(KIND.chain, groupLabel, 'error', 'the chain would be full');
    }
    const target = chain ?? { id: ctx.ids.newId(), group_kind: g.group_kind };
    const chainKey = keys.connectionChain(projectId, envId, target.id);
    const groupItem = record(KIND.chain, groupLabel, chain ? 'unchanged' : 'create');
    // A new chain is written with as many members as a batch holds (one transaction); the rest join it after.
    const first: { item: number; fields: Record<string, unknown>; guards: Unit['guards'] }[] = [];
    for (const [j, c] of specs.entries()) {
      if (matched[j]) {
        planMatched(matched[j]!, c, labels[j]);
        continue;
      }
      const item = record(KIND.connection, labels[j], 'create');
      const fields = newConnection(c, target, j);
      if (!chain && first.length < MAX_BATCH_CONNECTIONS) {
        first.push({ item, fields, guards: endGuards(c, labels[j]) });
        continue;
      }
      units.push({
        item,
        phase: 7,
        create: { kind: 'connection', fields },
        guards: endGuards(c, labels[j]),
        counters: [
          {
            key: chainKey,
            deltas: { connection_count: 1 },
            whileLive: `The ${g.group_kind} of '${labels[j]}' was removed during the import`,
            limits: { connection_count: { max: MAX_CHAIN_CONNECTIONS, refusal: invalid(CHAIN_FULL) } },
            reference: true,
          },
        ],
      });
    }
    if (!chain) {
      units.push({
        item: groupItem,
        also: first.map((m) => m.item),
        phase: 6,
        create: {
          kind: 'chain',
          fields: {
            id: target.id,
            project_id: projectId,
            environment_id: envId,
            group_kind: g.group_kind,
            connection_count: first.length,
            deleted_at: null,
          },
          members: first.map((m) => m.fields),
        },
        guards: first.flatMap((m) => m.guards),
        counters: [],
      });
    }
  });
  await sink.close(7);
}
