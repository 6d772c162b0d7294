import { keys } from '#db/keys';
import { transact, type TransactStep, concurrentChange, retryWhenStale, CASCADE_STALE } from '#db/transact';
import { invalid, notFound, type DomainError } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { ENV_NOT_IN_PROJECT, accessInEnvironment, accessToItem, retentionOfProject, type Environment } from '#domain/tenancy';
import { changeAudit, creationAudit } from '#shared/audit';
import { lookupStep } from '#db/lookup';
import { edgeEnds, type EntityType } from './ends';
import { chainEntity, connectionEntity, type Chain, type Connection, type Direction, type GroupKind } from './connection-entity';
import { queryPrefix } from '#db/query';
import { keyId } from '#db/batch-get';
import { LIVE_CONDITION, softDeleteStep, visible, setFieldsStep, isLive } from '#db/live';
import { getItem } from '#db/items';
import { retry } from '#db/retry';
import { forEachAtMost } from '#shared/concurrency';
import { counterStep, putNewStep } from '#db/steps';
import { referenceStep, refsAsRead } from '#db/refs';
import type { Key } from '#db/batch-get';
import { ALL_CONNECTIONS, chainPlace, connectionListing, type ConnectionListing } from '../listings';

/**
 * A batch is one transaction (DynamoDB: at most 100 items): 24 connections and their id lookups
 * (48), at most 48 distinct end checks, the chain and its lookup, the environment check = 99.
 */
export const MAX_BATCH_CONNECTIONS = 24;
/** A chain is patched and deleted in one transaction: its members plus the chain item must fit in 100. */
export const MAX_CHAIN_CONNECTIONS = 50;

export const CONNECTION_NOT_FOUND = 'Connection not found';
export const CHAIN_NOT_FOUND = 'Chain not found';
/** SPEC uses this wording (discovery); the same voice for every connection permission refusal. */
export const MISSING_MANAGE = 'Missing permission: connections.manage';
export const MISSING_VIEW = 'Missing permission: connections.view';
export const CHAIN_FULL = `Chain is full (max ${MAX_CHAIN_CONNECTIONS} connections)`;
export const DUPLICATE_CONNECTION = 'A connection between these two entities in this direction already exists';

export const CONNECTION_KIND = 'connection';
export const CHAIN_KIND = 'connection_chain';

/** The fields that make one connection (single create and each batch item). */
export interface ConnectionSpec {
  a_type: EntityType;
  a_id: string;
  b_type: EntityType;
  b_id: string;
  direction: Direction;
  name?: string | null;
}

const connectionKey = (c: Pick<Connection, 'project_id' | 'environment_id' | 'id'>) => keys.connection(c.project_id, c.environment_id, c.id);
const chainKeyOf = (c: Pick<Chain, 'project_id' | 'environment_id' | 'id'>) => keys.connectionChain(c.project_id, c.environment_id, c.id);
const endsOf = (specs: ConnectionSpec[]) => specs.flatMap((s) => [{ type: s.a_type, id: s.a_id }, { type: s.b_type, id: s.b_id }]);

function newConnection(projectId: string, envId: string, spec: ConnectionSpec, chain: Pick<Chain, 'id' | 'group_kind'> | null, now: string, ctx: AppContext, position = 0): Connection {
  return connectionEntity.create({
    position,
    id: ctx.ids.newId(),
    project_id: projectId,
    environment_id: envId,
    a_type: spec.a_type,
    a_id: spec.a_id,
    b_type: spec.b_type,
    b_id: spec.b_id,
    direction: spec.direction,
    chain_id: chain?.id,
    name: spec.name,
    group_kind: chain?.group_kind,
    created_at: now,
    updated_at: now,
  });
}

/**
 * What makes two connections duplicates: the same two ends and the same effective direction
 * (a→b `a_to_b` is b→a `b_to_a`; `both` and `none` do not depend on which end is a).
 */
export function pairKey(c: Pick<ConnectionSpec, 'a_type' | 'a_id' | 'b_type' | 'b_id' | 'direction'>): string {
  const a = `${c.a_type}:${c.a_id}`;
  const b = `${c.b_type}:${c.b_id}`;
  if (c.direction === 'a_to_b') return `${a}>${b}`;
  if (c.direction === 'b_to_a') return `${b}>${a}`;
  return `${[a, b].sort().join('|')}|${c.direction}`;
}

type VersionedEnv = Environment & { connections_version?: number };

/** Thrown when another connection write in the environment committed between our read and our write: read again. */
const TOPOLOGY_CHANGED = concurrentChange();

/**
 * Writes that could make a duplicate (creating, changing a direction) take turns per environment:
 * the live connections are read with the environment's `connections_version`, the new pairs
 * checked against them (400 for a duplicate), and the transaction moves the version on, on
 * condition that it is still the one read and the environment still live. A concurrent write
 * makes it read again; a deleted environment is the usual 400.
 */
async function withoutDuplicates(
  projectId: string,
  /** The environment as the caller's access read it: the first attempt's version (read before the list, as it must be). */
  readEnv: VersionedEnv,
  pairs: { specs: ConnectionSpec[]; replacing?: Set<string> },
  steps: (versionStep: TransactStep) => TransactStep[],
): Promise<void> {
  const envId = readEnv.id;
  await retry(
    async (attempt) => {
      const envKey = keys.environment(projectId, envId);
      // The version first, then the connections: a write committed after the version was read moves
      // it on and fails ours; one committed before is in the list (read in parallel, the list could
      // predate a write the version already counts).
      const env = attempt === 1 ? readEnv : await getItem<VersionedEnv>(envKey);
      if (!isLive(env)) throw invalid(ENV_NOT_IN_PROJECT);
      const existing = await connectionsBetween(projectId, envId, pairs.specs);
      const taken = new Set(existing.filter((c) => !pairs.replacing?.has(c.id)).map(pairKey));
      for (const spec of pairs.specs) {
        const key = pairKey(spec);
        if (taken.has(key)) throw invalid(DUPLICATE_CONNECTION);
        taken.add(key);
      }
      await transact(steps(connectionsVersionStep(projectId, envId, env!.connections_version ?? 0, TOPOLOGY_CHANGED)));
    },
    { attempts: 8, when: (err) => err === TOPOLOGY_CHANGED, baseMs: 10 },
  );
}

/** Listing ranges read at once by the duplicate check (a chain-wide change names up to 100 ends). */
const RANGES_IN_FLIGHT = 16;
/** The listings first read of each end: an end with fewer has been read whole. */
export const END_PROBE = 50;

type EndListing = { id: string; a_id?: string; b_id?: string };

/**
 * The live connections joining the two ends of one of `specs`, whatever their direction: the only
 * ones a duplicate can be (issue 26). The first END_PROBE listings of each end are read; a pair is
 * then decided by an end read whole, whose listings name their other end, so a new connection to a
 * hub costs the quieter end's connections, not the hub's. Only when both ends of a pair have more
 * is one of them read on. A listing without its ends (written before they were held, until the
 * backfill) counts as joining. A live connection always has its listings (they commit with it or
 * before it).
 */
async function connectionsBetween(projectId: string, envId: string, specs: ConnectionSpec[]): Promise<Connection[]> {
  const read = (end: string, limit?: number) => connectionListing.page<EndListing>(projectId, envId, { offset: 0, limit, place: end });
  const listed = new Map<string, EndListing[]>();
  await forEachAtMost([...new Set(specs.flatMap((s) => [s.a_id, s.b_id]))], RANGES_IN_FLIGHT, async (end) => {
    listed.set(end, await read(end, END_PROBE));
  });
  const whole = new Set([...listed].filter(([, l]) => l.length < END_PROBE).map(([end]) => end));
  const busy = new Set(specs.filter((s) => !whole.has(s.a_id) && !whole.has(s.b_id)).map((s) => s.a_id));
  await forEachAtMost([...busy], RANGES_IN_FLIGHT, async (end) => {
    listed.set(end, await read(end));
    whole.add(end);
  });
  const joining = new Set<string>();
  for (const s of specs) {
    const [end, other] = whole.has(s.a_id) ? [s.a_id, s.b_id] : [s.b_id, s.a_id];
    for (const l of listed.get(end)!) {
      if (l.a_id === undefined || l.b_id === undefined || (l.a_id === end ? l.b_id : l.a_id) === other) joining.add(l.id);
    }
  }
  return connectionListing.entities(projectId, envId, [...joining].map((id) => ({ id })));
}

/**
 * The step every write that could make a duplicate commits with (see withoutDuplicates, and the
 * import): the environment's `connections_version` moves on from `version`, on condition that it
 * is still that and the environment live; otherwise `failWith`.
 */
export function connectionsVersionStep(projectId: string, envId: string, version: number, failWith: DomainError): TransactStep {
  return {
    Update: {
      Key: keys.environment(projectId, envId),
      UpdateExpression: 'SET connections_version = :next',
      ConditionExpression: `${LIVE_CONDITION} AND ${version ? 'connections_version = :version' : 'attribute_not_exists(connections_version)'}`,
      ExpressionAttributeValues: { ':next': version + 1, ':null': null, ...(version ? { ':version': version } : {}) },
    },
    failWith,
  };
}

/** The connection item, its id lookup and its listings (issue 26: written beside the rest when a batch is too large for one transaction). */
export const putConnectionSteps = (c: Connection): TransactStep[] => [
  putNewStep(connectionEntity.encode(connectionKey(c), c)),
  lookupStep(c.id, c.project_id, connectionKey(c), CONNECTION_KIND),
  ...connectionListing.steps(null, c),
];

/** A new chain or hub item and its id lookup (its `connection_count` the members written with it). */
export function putChainSteps(chain: Chain): TransactStep[] {
  const key = chainKeyOf(chain);
  return [putNewStep(chainEntity.encode(key, chain)), lookupStep(chain.id, chain.project_id, key, CHAIN_KIND)];
}

/** What an audit entry records of a connection: its fields as its readers see them. */
export const auditedConnection = ({ audit_head: _h, position: _p, ...rest }: Connection) => rest;
export const chainShown = (chain: Chain, members: Pick<Connection, 'id' | 'direction' | 'name'>[]) => ({
  group_kind: chain.group_kind,
  connections: members.map((c) => ({ id: c.id, direction: c.direction, name: c.name })),
});
/** The retention of the project's plan, for a change's entry. */
const retention = (access: { project: Parameters<typeof retentionOfProject>[0] }) => retentionOfProject(access.project);

/** A single create: the ends must be live services or floors of this environment; a given chain_id joins that chain. */
export async function createConnection(
  ctx: AppContext,
  input: ConnectionSpec & { project_id: string; environment_id: string; chain_id?: string | null },
): Promise<Connection> {
  const { project_id: projectId, environment_id: envId } = input;
  const chainKey = input.chain_id ? keys.connectionChain(projectId, envId, input.chain_id) : undefined;
  const { access, env } = await accessInEnvironment(projectId, actorAccount(ctx).id, envId, chainKey ? [chainKey] : []);
  access.require('connections.manage', MISSING_MANAGE, envId);
  const found = chainKey ? access.extra.get(keyId(chainKey)) : undefined;
  const chain = found ? chainEntity.decode(found) : undefined;
  if (chainKey && !isLive(chain)) throw notFound(CHAIN_NOT_FOUND);
  const now = ctx.clock.now().toISOString();
  const connection = newConnection(projectId, envId, input, chain ?? null, now, ctx);
  // The join fails for a chain deleted meanwhile as for a full one: a read tells which.
  const joinFailed = concurrentChange();
  try {
    await withoutDuplicates(projectId, env, { specs: [input] }, (versionStep) => [
      versionStep,
      ...edgeEnds(projectId, envId, endsOf([input])),
      ...(chainKey ? [joinChainStep(chainKey, joinFailed)] : []),
      ...putConnectionSteps(connection),
      ...creationAudit(ctx, 'connection', connection, auditedConnection(connection)),
    ]);
  } catch (err) {
    if (err !== joinFailed) throw err;
    throw isLive(await getItem(chainKey!)) ? invalid(CHAIN_FULL) : notFound(CHAIN_NOT_FOUND);
  }
  return connection;
}

/** One more member, while the chain is live and not full (a reference: its delete then misses no member). */
const joinChainStep = (chainKey: Key, failWith: DomainError): TransactStep =>
  referenceStep(chainKey, failWith, { connection_count: 1 }, { connection_count: MAX_CHAIN_CONNECTIONS });

/**
 * Many connections in one transaction: they share one generated chain_id and the group_kind; each
 * keeps its own direction and name. All or nothing.
 */
export async function createConnectionBatch(
  ctx: AppContext,
  input: { project_id: string; environment_id: string; group_kind: GroupKind; items: ConnectionSpec[] },
): Promise<Connection[]> {
  const { project_id: projectId, environment_id: envId } = input;
  const { access, env } = await accessInEnvironment(projectId, actorAccount(ctx).id, envId);
  access.require('connections.manage', MISSING_MANAGE, envId);
  const now = ctx.clock.now().toISOString();
  const chain = chainEntity.create({
    id: ctx.ids.newId(),
    project_id: projectId,
    environment_id: envId,
    group_kind: input.group_kind,
    connection_count: input.items.length,
    created_at: now,
    updated_at: now,
  });
  const connections = input.items.map((spec, i) => newConnection(projectId, envId, spec, chain, now, ctx, i));
  await withoutDuplicates(projectId, env, { specs: input.items }, (versionStep) => [
    versionStep,
    ...edgeEnds(projectId, envId, endsOf(input.items)),
    ...putChainSteps(chain),
    ...connections.flatMap(putConnectionSteps),
    // One entry for the batch (its connections listed): an entry per connection would not fit DynamoDB's 100 items.
    ...creationAudit(ctx, 'chain', chain, chainShown(chain, connections)),
  ]);
  return connections;
}

/**
 * GET /service-connections: an environment's connections, optionally touching one entity or of one
 * chain, in creation order. Read from their listings (issue 26): the environment's range, or the
 * entity's own (only its connections), filtered on the chain, up to `offset + limit` (beyond SPEC;
 * without `limit` the whole list). A sync (`updated_since`, deleted ones too) reads them all.
 */
export async function listConnections(
  ctx: AppContext,
  query: { project_id: string; environment_id: string; entity_id?: string; chain_id?: string; updated_since?: string; offset?: number; limit?: number },
): Promise<Connection[]> {
  const { project_id: projectId, environment_id: envId, offset = 0, limit } = query;
  const [{ access }, page] = await Promise.all([
    accessInEnvironment(projectId, actorAccount(ctx).id, envId),
    query.updated_since
      ? null
      : connectionListing.livePage<ConnectionListing>(projectId, envId, {
          offset, limit, place: query.entity_id ?? ALL_CONNECTIONS, keep: query.chain_id ? (l) => l.chain_id === query.chain_id : undefined,
        }),
  ]);
  access.require('connections.view', MISSING_VIEW, envId);
  if (page) return page;
  const all = (await queryPrefix(projectId, keys.connectionPrefix(envId))).map(connectionEntity.decode);
  const matching = visible(all, query.updated_since)
    .filter((c) => !query.entity_id || c.a_id === query.entity_id || c.b_id === query.entity_id)
    .filter((c) => !query.chain_id || c.chain_id === query.chain_id)
    .sort(byConnectionOrder);
  return matching.slice(offset, limit === undefined ? undefined : offset + limit);
}

/** Connections in the order they were made (a batch's in its order): how lists and chains show them. */
export const byConnectionOrder = (a: Pick<Connection, 'created_at' | 'position' | 'id'>, b: Pick<Connection, 'created_at' | 'position' | 'id'>) => a.created_at.localeCompare(b.created_at) || (a.position ?? 0) - (b.position ?? 0) || a.id.localeCompare(b.id);

/** The caller's access to one connection, with the manage permission in its environment. */
async function manageConnection(ctx: AppContext, id: string) {
  const { access, item, env } = await accessToItem<Record<string, unknown>>({ id, kind: CONNECTION_KIND, userId: actorAccount(ctx).id, notFound: notFound(CONNECTION_NOT_FOUND) });
  const connection = connectionEntity.decode(item);
  access.require('connections.manage', MISSING_MANAGE, connection.environment_id);
  return { connection, env: env as Environment, access };
}

export interface ConnectionChanges {
  direction?: Direction;
  name?: string | null;
}

/** Sets the given fields (undefined = unchanged) on a live connection. */
function updateConnectionStep(c: Connection, changes: ConnectionChanges, now: string, failWith = notFound(CONNECTION_NOT_FOUND), auditHead?: string): TransactStep {
  return setFieldsStep(connectionKey(c), { direction: changes.direction, name: changes.name, updated_at: now, audit_head: auditHead }, failWith);
}

const applyChanges = (c: Connection, changes: ConnectionChanges, now: string): Connection => ({
  ...c,
  ...(changes.direction !== undefined ? { direction: changes.direction } : {}),
  ...(changes.name !== undefined ? { name: changes.name } : {}),
  updated_at: now,
});

export async function updateConnection(ctx: AppContext, input: { connection_id: string } & ConnectionChanges): Promise<Connection> {
  const { connection_id: id, ...changes } = input;
  const { connection, env, access } = await manageConnection(ctx, id);
  // Unchanged values are no write and no entry, as for every other update.
  const same = (changes.direction ?? connection.direction) === connection.direction && (changes.name === undefined || changes.name === connection.name);
  if (same) return connection;
  const now = ctx.clock.now().toISOString();
  const after = applyChanges(connection, changes, now);
  const audit = changeAudit(ctx, 'connection', 'update', connection, { before: auditedConnection(connection), after: auditedConnection(after) }, await retention(access));
  const steps = [updateConnectionStep(connection, changes, now, undefined, audit.head), ...audit.steps];
  if (changes.direction === undefined || changes.direction === connection.direction) await transact(steps);
  else await withoutDuplicates(connection.project_id, env, { specs: [after], replacing: new Set([connection.id]) }, (v) => [v, ...steps]);
  return after;
}

/** Soft delete; a chain member also leaves its chain's count. */
export async function deleteConnection(ctx: AppContext, input: { connection_id: string }): Promise<void> {
  const { connection, access } = await manageConnection(ctx, input.connection_id);
  const now = ctx.clock.now().toISOString();
  const leaveChain: TransactStep[] = connection.chain_id
    ? [counterStep(keys.connectionChain(connection.project_id, connection.environment_id, connection.chain_id), { connection_count: -1 })]
    : [];
  const audit = changeAudit(ctx, 'connection', 'delete', connection, { before: auditedConnection(connection), after: null }, await retention(access));
  await transact([
    // The soft delete (the live rule's condition), with the connection's latest audit entry.
    setFieldsStep(connectionKey(connection), { deleted_at: now, updated_at: now, audit_head: audit.head }, notFound(CONNECTION_NOT_FOUND)),
    ...connectionListing.steps(connection, null),
    ...leaveChain,
    ...audit.steps,
  ]);
}

/** The caller's access to a chain (manage permission in its environment) and its live members. */
async function manageChain(ctx: AppContext, chainId: string) {
  const { access, item, env } = await accessToItem<Record<string, unknown>>({ id: chainId, kind: CHAIN_KIND, userId: actorAccount(ctx).id, notFound: notFound(CHAIN_NOT_FOUND) });
  const chain = chainEntity.decode(item);
  access.require('connections.manage', MISSING_MANAGE, chain.environment_id);
  const [days, members] = await Promise.all([retention(access), chainMembers(chain)]);
  return { chain, env, days, members: members.sort(byConnectionOrder) };
}

/**
 * A chain's live members, from its own listing range (issue 26: what it reads grows with the
 * chain, not the environment). Should the range hold fewer than the chain counts (a table whose
 * backfill has not yet listed older chains, or a member leaving meanwhile), the environment's
 * connections are read as before, filtered on chain_id: a chain-wide write never misses a member.
 */
async function chainMembers(chain: Chain): Promise<Connection[]> {
  const members = await connectionListing.livePage(chain.project_id, chain.environment_id, { offset: 0, place: chainPlace(chain.id) });
  if (members.length >= chain.connection_count) return members;
  const all = await queryPrefix(chain.project_id, keys.connectionPrefix(chain.environment_id), {
    filter: 'chain_id = :chain AND deleted_at = :null',
    values: { ':chain': chain.id, ':null': null },
  });
  return all.map(connectionEntity.decode);
}

/**
 * The chain item changes with every chain-wide write, guarded by the member count read before:
 * a member added or removed meanwhile makes the write fail instead of missing it, and the write
 * re-runs from a new read (`retryWhenStale`; 409 when members keep moving).
 */
function chainWriteStep(chain: Chain, update: string, values: Record<string, unknown>): TransactStep {
  // No member joined since the read either (a join and a leave would bring the count back).
  const refs = refsAsRead(chain);
  return {
    Update: {
      Key: chainKeyOf(chain),
      UpdateExpression: update,
      ConditionExpression: `${LIVE_CONDITION} AND connection_count = :count AND ${refs.expression}`,
      ExpressionAttributeNames: refs.names,
      ExpressionAttributeValues: { ':null': null, ':count': chain.connection_count, ...refs.values, ...values },
    },
    failWith: CASCADE_STALE,
  };
}

/** Sets direction and/or name on every member of a chain or hub, in one transaction. */
export const updateChain = (ctx: AppContext, input: { chain_id: string } & ConnectionChanges): Promise<Connection[]> => retryWhenStale(() => updateChainOnce(ctx, input));

async function updateChainOnce(ctx: AppContext, input: { chain_id: string } & ConnectionChanges): Promise<Connection[]> {
  const { chain_id: chainId, ...changes } = input;
  const { chain, env, members, days } = await manageChain(ctx, chainId);
  const now = ctx.clock.now().toISOString();
  const updated = members.map((c) => applyChanges(c, changes, now));
  // One entry for the chain-wide change (its members' before and after): the members share the transaction's 100 items.
  const audit = changeAudit(ctx, 'chain', 'update', chain, { before: chainShown(chain, members), after: chainShown(chain, updated) }, days);
  const steps = [
    chainWriteStep(chain, 'SET updated_at = :now, audit_head = :head', { ':now': now, ':head': audit.head }),
    ...members.map((c) => updateConnectionStep(c, changes, now, CASCADE_STALE)),
    ...audit.steps,
  ];
  if (changes.direction === undefined) await transact(steps);
  else await withoutDuplicates(chain.project_id, env, { specs: updated, replacing: new Set(members.map((c) => c.id)) }, (v) => [v, ...steps]);
  return updated;
}

/** Soft-deletes a chain or hub and all its members, in one transaction. */
export const deleteChain = (ctx: AppContext, input: { chain_id: string }): Promise<void> => retryWhenStale(() => deleteChainOnce(ctx, input));

async function deleteChainOnce(ctx: AppContext, input: { chain_id: string }): Promise<void> {
  const { chain, members, days } = await manageChain(ctx, input.chain_id);
  const now = ctx.clock.now().toISOString();
  const audit = changeAudit(ctx, 'chain', 'delete', chain, { before: chainShown(chain, members), after: null }, days);
  await transact([
    chainWriteStep(chain, 'SET deleted_at = :now, updated_at = :now, connection_count = :zero, audit_head = :head', { ':now': now, ':zero': 0, ':head': audit.head }),
    ...members.flatMap((c) => [softDeleteStep(connectionKey(c), now, CASCADE_STALE), ...connectionListing.steps(c, null)]),
    ...audit.steps,
  ]);
}
