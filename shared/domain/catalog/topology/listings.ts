import { keys } from '#db/keys';
import { defineListing } from '../listing.ts';
import { connectionEntity, type Connection } from './connection-entity.ts';
import { linkEntity, type Link } from './link-entity.ts';

/** The lists of the topology's edges read from listing items (../listing.ts); the catalog's others are in ../listings.ts. */

/** The place of a connection's listing in its environment's whole list (the other two are its ends' ids). */
export const ALL_CONNECTIONS = 'ALL';
/** The place of a chain's members (never an entity's id: ids are UUIDs, so `entity_id` cannot name it). */
export const chainPlace = (chainId: string) => `CHAIN.${chainId}`;

/**
 * GET /service-connections: in creation order (`byConnectionOrder`: created_at, then the position in
 * its batch, then id), as `<created_at>#<position, 10 digits>#<id>`; created_at is always an ISO
 * instant of one length (toISOString), so its bytes order as its text does. Listed in the
 * environment's range and in each end's (`entity_id` reads only that entity's; a service's or
 * floor's delete and the duplicate check read their ends'), and a chain member in its chain's too
 * (a chain's patch and delete read only its members). Filters on chain_id and carries both ends'
 * ids (all fixed for a connection's life), so the duplicate check finds a pair's connections from
 * the quieter end's listing alone (revision 3). Written beside the connection's transaction when a
 * batch or a chain's delete would not fit one, so it is read through `livePage` (or `page` then
 * `entities`) only.
 */
export const connectionListing = defineListing<Connection, 'chain_id' | 'a_id' | 'b_id'>({
  family: 'CONN',
  beside: true,
  revision: 3,
  orderKey: (c) => `${c.created_at ?? ''}#${String(c.position ?? 0).padStart(10, '0')}`,
  places: (c) => [ALL_CONNECTIONS, c.a_id!, c.b_id!, ...(c.chain_id ? [chainPlace(c.chain_id)] : [])],
  filtered: ['chain_id'],
  hints: ['a_id', 'b_id'],
  entityKey: keys.connection,
  decode: connectionEntity.decode,
});
export type ConnectionListing = Pick<Connection, 'id' | 'chain_id'>;

/**
 * A service's links (GET /service-links?service_id=, a service's delete): in creation order, as
 * `<created_at>#<id>` (created_at is always toISOString, one length, and ids are lower-case UUIDs,
 * so the bytes order as the former sort, created_at then id), listed in the range of each end
 * (from and to service), not the environment's: the whole list still reads the links themselves.
 * A link's ends never change and a link is never patched, so its listings hold the id only and are
 * written by its create (API and import: `newLinkSteps`) and removed by its delete and a service's
 * delete (`edgeRemovalSteps`); links are not archived. Read with `livePage` (or `page` then
 * `entities`): a service delete's cascade committed in chunks may leave a listing of no live link.
 */
export const linkListing = defineListing<Link, never>({
  family: 'LINK',
  orderKey: (l) => l.created_at ?? '',
  // One place per distinct end (a link to itself is refused, but two equal keys would fail the transaction).
  places: (l) => [...new Set([l.from_service_id!, l.to_service_id!])],
  filtered: [],
  entityKey: keys.link,
  decode: linkEntity.decode,
});
