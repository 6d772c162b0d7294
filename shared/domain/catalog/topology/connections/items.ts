import { keys } from '#db/keys';
import { CASCADE_STALE, type TransactStep } from '#db/transact';
import type { AppContext } from '#shared/context';
import { retentionOfProject } from '#domain/tenancy';
import { lookupStep } from '#db/lookup';
import type { EntityType } from '../ends.ts';
import { chainEntity, connectionEntity, type Chain, type Connection, type Direction } from '../connection-entity.ts';
import { allOf, setFieldsStep } from '#db/live';
import { putNewStep } from '#db/steps';
import { countIs } from '#db/counter-moves';
import { refsAsRead } from '#db/refs';
import { connectionListing } from '../listings.ts';

/** The connection and chain items: their keys, new ones, their writes, what their audit entries show. */

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

export const connectionKey = (c: Pick<Connection, 'project_id' | 'environment_id' | 'id'>) =>
  keys.connection(c.project_id, c.environment_id, c.id);
const chainKeyOf = (c: Pick<Chain, 'project_id' | 'environment_id' | 'id'>) =>
  keys.connectionChain(c.project_id, c.environment_id, c.id);
export const endsOf = (specs: ConnectionSpec[]) =>
  specs.flatMap((s) => [
    { type: s.a_type, id: s.a_id },
    { type: s.b_type, id: s.b_id },
  ]);

export function newConnection(
  projectId: string,
  envId: string,
  spec: ConnectionSpec,
  chain: Pick<Chain, 'id' | 'group_kind'> | null,
  now: string,
  ctx: AppContext,
  position = 0,
): Connection {
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

/** The connection item, its id lookup and its listings (written beside the rest when a batch is too large for one transaction). */
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
export const retention = (access: { project: Parameters<typeof retentionOfProject>[0] }) =>
  retentionOfProject(access.project);

/**
 * The chain item changes with every chain-wide write, guarded by the member count read before:
 * a member added or removed meanwhile makes the write fail instead of missing it, and the write
 * re-runs from a new read (`retryWhenStale`; 409 when members keep moving).
 */
export const chainWriteStep = (chain: Chain, fields: Record<string, unknown>): TransactStep =>
  // No member joined since the read either (a join and a leave would bring the count back).
  setFieldsStep(
    chainKeyOf(chain),
    fields,
    CASCADE_STALE,
    allOf(countIs('connection_count', chain.connection_count), refsAsRead(chain)),
  );
