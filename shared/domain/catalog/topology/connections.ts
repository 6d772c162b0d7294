import { keys } from '#db/keys';
import { transact, type TransactStep, concurrentChange } from '#db/transact';
import { invalid, notFound } from '#shared/errors';
import type { AppContext } from '#shared/context';
import { envLiveCheck, accessInEnvironment, accessToEnvItem } from '#domain/tenancy';
import { lookupStep } from '#db/lookup';
import { liveEntityChecks, type EntityType } from './ends';
import { queryPrefix } from '#db/query';
import { keyId } from '#db/batch-get';
import { softDeleteStep, visible, setFieldsStep, isLive } from '#db/live';

export const DIRECTIONS = ['none', 'a_to_b', 'b_to_a', 'both'] as const;
export type Direction = (typeof DIRECTIONS)[number];
export const GROUP_KINDS = ['chain', 'hub'] as const;
export type GroupKind = (typeof GROUP_KINDS)[number];

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
const CHAIN_FULL = `Chain is full (max ${MAX_CHAIN_CONNECTIONS} connections)`;

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

/** Field names are a contract: the services group deletes connections by `a_id`/`b_id`. */
export interface Connection {
  id: string;
  project_id: string;
  environment_id: string;
  a_type: EntityType;
  a_id: string;
  b_type: EntityType;
  b_id: string;
  direction: Direction;
  chain_id: string | null;
  name: string | null;
  group_kind: GroupKind | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  /** Internal: the item's index in its batch, so a chain lists in the order it was given (same created_at). */
  position?: number;
}

/**
 * A chain or hub: born from a batch, joined by single creates that name its chain_id. Internal
 * (not an API resource). `connection_count` (live members) bounds chain-wide transactions; every
 * write that adds or removes a member moves it in the same transaction (here, and in the
 * catalog's cascade when a service or floor is deleted: `edgeRemovalSteps`).
 */
interface Chain {
  id: string;
  project_id: string;
  environment_id: string;
  group_kind: GroupKind;
  connection_count: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export const toConnectionOut = (c: Connection) => ({
  id: c.id,
  project_id: c.project_id,
  environment_id: c.environment_id,
  a_type: c.a_type,
  a_id: c.a_id,
  b_type: c.b_type,
  b_id: c.b_id,
  direction: c.direction,
  chain_id: c.chain_id,
  name: c.name,
  group_kind: c.group_kind,
  created_at: c.created_at,
  updated_at: c.updated_at,
  deleted_at: c.deleted_at,
});

const connectionKey = (c: Pick<Connection, 'project_id' | 'environment_id' | 'id'>) => keys.connection(c.project_id, c.environment_id, c.id);
const endsOf = (specs: ConnectionSpec[]) => specs.flatMap((s) => [{ type: s.a_type, id: s.a_id }, { type: s.b_type, id: s.b_id }]);

function newConnection(projectId: string, envId: string, spec: ConnectionSpec, chain: Pick<Chain, 'id' | 'group_kind'> | null, now: string, ctx: AppContext, position = 0): Connection {
  return {
    position,
    id: ctx.ids.newId(),
    project_id: projectId,
    environment_id: envId,
    a_type: spec.a_type,
    a_id: spec.a_id,
    b_type: spec.b_type,
    b_id: spec.b_id,
    direction: spec.direction,
    chain_id: chain?.id ?? null,
    name: spec.name ?? null,
    group_kind: chain?.group_kind ?? null,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
}

/** The connection item and its id lookup. */
const putConnectionSteps = (c: Connection): TransactStep[] => [
  { Put: { Item: { ...connectionKey(c), type: 'connection', ...c }, ConditionExpression: 'attribute_not_exists(PK)' } },
  lookupStep(c.id, c.project_id, connectionKey(c), CONNECTION_KIND),
];

/** A single create: the ends must be live services or floors of this environment; a given chain_id joins that chain. */
export async function createConnection(
  userId: string,
  input: ConnectionSpec & { project_id: string; environment_id: string; chain_id?: string | null },
  ctx: AppContext,
): Promise<Connection> {
  const { project_id: projectId, environment_id: envId } = input;
  const chainKey = input.chain_id ? keys.connectionChain(projectId, envId, input.chain_id) : undefined;
  const { access } = await accessInEnvironment(projectId, userId, envId, chainKey ? [chainKey] : []);
  access.require('connections.manage', MISSING_MANAGE, envId);
  const chain = chainKey ? (access.extra.get(keyId(chainKey)) as Chain | undefined) : undefined;
  if (chainKey && !isLive(chain)) throw notFound(CHAIN_NOT_FOUND);
  const now = ctx.clock.now().toISOString();
  const connection = newConnection(projectId, envId, input, chain ?? null, now, ctx);
  await transact([
    envLiveCheck(projectId, envId),
    ...liveEntityChecks(projectId, envId, endsOf([input])),
    ...(chainKey ? [joinChainStep(chainKey, now)] : []),
    ...putConnectionSteps(connection),
  ]);
  return connection;
}

/** One more member, while the chain is live and not full. */
function joinChainStep(chainKey: { PK: string; SK: string }, now: string): TransactStep {
  return {
    Update: {
      Key: chainKey,
      UpdateExpression: 'SET connection_count = connection_count + :one, updated_at = :now',
      ConditionExpression: 'attribute_exists(PK) AND deleted_at = :null AND connection_count < :max',
      ExpressionAttributeValues: { ':one': 1, ':now': now, ':null': null, ':max': MAX_CHAIN_CONNECTIONS },
    },
    failWith: invalid(CHAIN_FULL),
  };
}

/**
 * Many connections in one transaction: they share one generated chain_id and the group_kind; each
 * keeps its own direction and name. All or nothing.
 */
export async function createConnectionBatch(
  userId: string,
  input: { project_id: string; environment_id: string; group_kind: GroupKind; items: ConnectionSpec[] },
  ctx: AppContext,
): Promise<Connection[]> {
  const { project_id: projectId, environment_id: envId } = input;
  const { access } = await accessInEnvironment(projectId, userId, envId);
  access.require('connections.manage', MISSING_MANAGE, envId);
  const now = ctx.clock.now().toISOString();
  const chain: Chain = {
    id: ctx.ids.newId(),
    project_id: projectId,
    environment_id: envId,
    group_kind: input.group_kind,
    connection_count: input.items.length,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  const chainKey = keys.connectionChain(projectId, envId, chain.id);
  const connections = input.items.map((spec, i) => newConnection(projectId, envId, spec, chain, now, ctx, i));
  await transact([
    envLiveCheck(projectId, envId),
    ...liveEntityChecks(projectId, envId, endsOf(input.items)),
    { Put: { Item: { ...chainKey, type: 'connection_chain', ...chain }, ConditionExpression: 'attribute_not_exists(PK)' } },
    lookupStep(chain.id, projectId, chainKey, CHAIN_KIND),
    ...connections.flatMap(putConnectionSteps),
  ]);
  return connections;
}

/** GET /service-connections: an environment's connections, optionally touching one entity or of one chain. */
export async function listConnections(
  userId: string,
  query: { project_id: string; environment_id: string; entity_id?: string; chain_id?: string; updated_since?: string },
): Promise<Connection[]> {
  const { access } = await accessInEnvironment(query.project_id, userId, query.environment_id);
  access.require('connections.view', MISSING_VIEW, query.environment_id);
  const all = await queryPrefix<Connection>(query.project_id, keys.connectionPrefix(query.environment_id));
  return visible(all, query.updated_since)
    .filter((c) => !query.entity_id || c.a_id === query.entity_id || c.b_id === query.entity_id)
    .filter((c) => !query.chain_id || c.chain_id === query.chain_id)
    .sort(byCreation);
}

const byCreation = (a: Connection, b: Connection) => a.created_at.localeCompare(b.created_at) || (a.position ?? 0) - (b.position ?? 0) || a.id.localeCompare(b.id);

/** The caller's access to one connection, with the manage permission in its environment. */
async function manageConnection(userId: string, id: string) {
  const { access, item } = await accessToEnvItem<Connection>(id, CONNECTION_KIND, userId, notFound(CONNECTION_NOT_FOUND));
  access.require('connections.manage', MISSING_MANAGE, item.environment_id);
  return item;
}

export interface ConnectionChanges {
  direction?: Direction;
  name?: string | null;
}

/** Sets the given fields (undefined = unchanged) on a live connection. */
function updateConnectionStep(c: Connection, changes: ConnectionChanges, now: string, failWith = notFound(CONNECTION_NOT_FOUND)): TransactStep {
  return setFieldsStep(connectionKey(c), { direction: changes.direction, name: changes.name, updated_at: now }, failWith);
}

const applyChanges = (c: Connection, changes: ConnectionChanges, now: string): Connection => ({
  ...c,
  ...(changes.direction !== undefined ? { direction: changes.direction } : {}),
  ...(changes.name !== undefined ? { name: changes.name } : {}),
  updated_at: now,
});

export async function updateConnection(userId: string, id: string, changes: ConnectionChanges, ctx: AppContext): Promise<Connection> {
  const connection = await manageConnection(userId, id);
  const now = ctx.clock.now().toISOString();
  await transact([updateConnectionStep(connection, changes, now)]);
  return applyChanges(connection, changes, now);
}

/** Soft delete; a chain member also leaves its chain's count. */
export async function deleteConnection(userId: string, id: string, ctx: AppContext): Promise<void> {
  const connection = await manageConnection(userId, id);
  const now = ctx.clock.now().toISOString();
  const leaveChain: TransactStep[] = connection.chain_id
    ? [{
        Update: {
          Key: keys.connectionChain(connection.project_id, connection.environment_id, connection.chain_id),
          UpdateExpression: 'SET connection_count = connection_count - :one',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':one': 1 },
        },
      }]
    : [];
  await transact([softDeleteStep(connectionKey(connection), now, notFound(CONNECTION_NOT_FOUND)), ...leaveChain]);
}

/** The caller's access to a chain (manage permission in its environment) and its live members. */
async function manageChain(userId: string, chainId: string) {
  const { access, item: chain } = await accessToEnvItem<Chain>(chainId, CHAIN_KIND, userId, notFound(CHAIN_NOT_FOUND));
  access.require('connections.manage', MISSING_MANAGE, chain.environment_id);
  // The chain's members: one Query on the environment's connections, filtered on chain_id (no index needed at this size).
  const members = await queryPrefix<Connection>(chain.project_id, keys.connectionPrefix(chain.environment_id), {
    filter: 'chain_id = :chain AND deleted_at = :null',
    values: { ':chain': chain.id, ':null': null },
  });
  return { chain, members: members.sort(byCreation) };
}

/**
 * The chain item changes with every chain-wide write, guarded by the member count read before:
 * a member added or removed meanwhile makes the write fail (409) instead of missing it.
 */
function chainWriteStep(chain: Chain, update: string, values: Record<string, unknown>): TransactStep {
  return {
    Update: {
      Key: keys.connectionChain(chain.project_id, chain.environment_id, chain.id),
      UpdateExpression: update,
      ConditionExpression: 'attribute_exists(PK) AND deleted_at = :null AND connection_count = :count',
      ExpressionAttributeValues: { ':null': null, ':count': chain.connection_count, ...values },
    },
    failWith: concurrentChange(),
  };
}

/** Sets direction and/or name on every member of a chain or hub, in one transaction. */
export async function updateChain(userId: string, chainId: string, changes: ConnectionChanges, ctx: AppContext): Promise<Connection[]> {
  const { chain, members } = await manageChain(userId, chainId);
  const now = ctx.clock.now().toISOString();
  await transact([
    chainWriteStep(chain, 'SET updated_at = :now', { ':now': now }),
    ...members.map((c) => updateConnectionStep(c, changes, now, concurrentChange())),
  ]);
  return members.map((c) => applyChanges(c, changes, now));
}

/** Soft-deletes a chain or hub and all its members, in one transaction. */
export async function deleteChain(userId: string, chainId: string, ctx: AppContext): Promise<void> {
  const { chain, members } = await manageChain(userId, chainId);
  const now = ctx.clock.now().toISOString();
  await transact([
    chainWriteStep(chain, 'SET deleted_at = :now, updated_at = :now, connection_count = :zero', { ':now': now, ':zero': 0 }),
    ...members.map((c) => softDeleteStep(connectionKey(c), now, concurrentChange())),
  ]);
}
