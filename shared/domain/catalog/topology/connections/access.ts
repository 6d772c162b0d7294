import { keys } from '#db/keys';
import { notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { accessToItem, type Environment } from '#domain/tenancy';
import { chainEntity, connectionEntity, type Chain, type Connection } from '../connection-entity.ts';
import { queryPrefix } from '#db/query';
import { allOf, filterParams, NOT_DELETED } from '#db/live';
import { chainPlace, connectionListing } from '../listings.ts';
import { CHAIN_NOT_FOUND, CONNECTION_NOT_FOUND, MISSING_MANAGE } from './limits-and-refusals.ts';
import { CHAIN_KIND, CONNECTION_KIND, retention } from './items.ts';
import { byConnectionOrder } from './list.ts';

const MANAGE = { key: 'connections.manage', detail: MISSING_MANAGE } as const;

/** The caller's access to one connection, with the manage permission in its environment. */
export async function manageConnection(ctx: AppContext, id: string) {
  const { access, item, env } = await accessToItem<Record<string, unknown>>({
    id,
    kind: CONNECTION_KIND,
    userId: actorAccount(ctx).id,
    notFound: notFound(CONNECTION_NOT_FOUND),
    permission: MANAGE,
  });
  return { connection: connectionEntity.decode(item), env: env as Environment, access };
}

/** The caller's access to a chain (manage permission in its environment) and its live members. */
export async function manageChain(ctx: AppContext, chainId: string) {
  const { access, item, env } = await accessToItem<Record<string, unknown>>({
    id: chainId,
    kind: CHAIN_KIND,
    userId: actorAccount(ctx).id,
    notFound: notFound(CHAIN_NOT_FOUND),
    permission: MANAGE,
  });
  const chain = chainEntity.decode(item);
  const [days, members] = await Promise.all([retention(access), chainMembers(chain)]);
  return { chain, env, days, members: members.sort(byConnectionOrder) };
}

/**
 * A chain's live members, from its own listing range (what it reads grows with the
 * chain, not the environment). Should the range hold fewer than the chain counts (a table whose
 * backfill has not yet listed older chains, or a member leaving meanwhile), the environment's
 * connections are read as before, filtered on chain_id: a chain-wide write never misses a member.
 */
async function chainMembers(chain: Chain): Promise<Connection[]> {
  const members = await connectionListing.livePage(chain.project_id, chain.environment_id, {
    offset: 0,
    place: chainPlace(chain.id),
  });
  if (members.length >= chain.connection_count) return members;
  // Connections are never archived, so not deleted is live (LIVE's key test cannot filter a Query).
  const all = await queryPrefix(
    chain.project_id,
    keys.connectionPrefix(chain.environment_id),
    filterParams(allOf({ expression: 'chain_id = :chain', values: { ':chain': chain.id } }, NOT_DELETED)!),
  );
  return all.map(connectionEntity.decode);
}
