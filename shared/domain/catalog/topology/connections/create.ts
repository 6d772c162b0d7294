import { keys } from '#db/keys';
import { concurrentChange, type TransactStep } from '#db/transact';
import { invalid, notFound, type DomainError } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { accessInEnvironment } from '#domain/tenancy';
import { creationAudit } from '#shared/audit';
import { edgeEnds } from '../ends.ts';
import { chainEntity, type Connection, type GroupKind } from '../connection-entity.ts';
import { keyId } from '#db/batch-get';
import { isLive } from '#db/live';
import { getItem } from '#db/items';
import { referenceStep } from '#db/refs';
import type { Key } from '#db/batch-get';
import { CHAIN_FULL, CHAIN_NOT_FOUND, MAX_CHAIN_CONNECTIONS, MISSING_MANAGE } from './limits-and-refusals.ts';
import {
  auditedConnection,
  chainShown,
  endsOf,
  newConnection,
  putChainSteps,
  putConnectionSteps,
  type ConnectionSpec,
} from './items.ts';
import { withoutDuplicates } from './duplicates.ts';

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
