import { keys } from '#db/keys';
import { defineListing } from './listing';
import { isDeleted } from '#db/live';
import { serviceEntity, type Service } from './service-entity';
import { floorEntity, type Floor } from './floor-entity';
import { networkEntity, type Network } from './network-entity';
import { connectionEntity, type Connection } from './topology/connection-entity';
import { linkEntity, type Link } from './topology/link-entity';

/** The lists read from listing items (listing.ts), each with what its list filters on. */

/**
 * What a service names, listed by what it names: `SERVICEREFBY#<envId>#<place>##<serviceId>`
 * for its server (`FLOOR.<id>`), its responsible member (`USER.<id>`) and responsible project user
 * (`PUSER.<id>`), so the server's delete, the member's removal and the project user's delete read the
 * services that name them with one Query of that range: a cost proportional to those services, not
 * to the environment. Kept while the service is not deleted (an archived service keeps its server and
 * people, and is detached from them too). Written with the service's name listing by every write of a
 * service (`with` below), each holding the fields as read; removed by those that clear a reference.
 */
export const serviceRefListing = defineListing<Service, 'service_floor_id' | 'responsible_user_id' | 'responsible_project_user_id'>({
  family: 'SERVICEREF', entityFamily: 'SERVICE', orderKey: () => '',
  places: (s) => [
    ...(s.service_floor_id ? [keys.serviceRefPlace.floor(s.service_floor_id)] : []),
    ...(s.responsible_user_id ? [keys.serviceRefPlace.member(s.responsible_user_id)] : []),
    ...(s.responsible_project_user_id ? [keys.serviceRefPlace.projectUser(s.responsible_project_user_id)] : []),
  ],
  listedWhile: (s) => !isDeleted(s),
  filtered: ['service_floor_id', 'responsible_user_id', 'responsible_project_user_id'],
  entityKey: keys.service, decode: serviceEntity.decode,
});

/** GET /services: by name; filters name, tags, language, location; the page's floor type and group names read with it. */
export const serviceListing = defineListing<Service, 'name' | 'tags' | 'programming_language' | 'provider' | 'provider_region' | 'provider_zone' | 'service_floor_id' | 'group_id' | 'subgroup_id'>({
  family: 'SERVICE', orderBy: 'name', with: [serviceRefListing],
  filtered: ['name', 'tags', 'programming_language', 'provider', 'provider_region', 'provider_zone'],
  hints: ['service_floor_id', 'group_id', 'subgroup_id'],
  lists: ['tags'], entityKey: keys.service, decode: serviceEntity.decode,
});
export type ServiceListing = Pick<Service, 'id' | 'name' | 'tags' | 'programming_language' | 'provider' | 'provider_region' | 'provider_zone' | 'service_floor_id' | 'group_id' | 'subgroup_id'>;

/** GET /service-floors: by hostname; filters hostname, tags, type, location, zone. */
export const floorListing = defineListing<Floor, 'hostname' | 'tags' | 'floor_type' | 'provider' | 'provider_region' | 'provider_zone'>({
  family: 'FLOOR', orderBy: 'hostname',
  filtered: ['hostname', 'tags', 'floor_type', 'provider', 'provider_region', 'provider_zone'],
  lists: ['tags'], entityKey: keys.floor, decode: floorEntity.decode,
});
export type FloorListing = Pick<Floor, 'id' | 'hostname' | 'tags' | 'floor_type' | 'provider' | 'provider_region' | 'provider_zone'>;

/** GET /networks: by name; `q` searches name, CIDR, gateway and VLAN; filters VLAN, mask and range (from the CIDR). */
export const networkListing = defineListing<Network, 'name' | 'cidr' | 'gateway' | 'vlan_id'>({
  family: 'NETWORK', orderBy: 'name', filtered: ['name', 'cidr', 'gateway', 'vlan_id'], entityKey: keys.network, decode: networkEntity.decode,
});
export type NetworkListing = Pick<Network, 'id' | 'name' | 'cidr' | 'gateway' | 'vlan_id'>;

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
  family: 'CONN', beside: true, revision: 3,
  orderKey: (c) => `${c.created_at ?? ''}#${String(c.position ?? 0).padStart(10, '0')}`,
  places: (c) => [ALL_CONNECTIONS, c.a_id!, c.b_id!, ...(c.chain_id ? [chainPlace(c.chain_id)] : [])],
  filtered: ['chain_id'], hints: ['a_id', 'b_id'], entityKey: keys.connection, decode: connectionEntity.decode,
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
  filtered: [], entityKey: keys.link, decode: linkEntity.decode,
});

export const LISTINGS = [serviceListing, floorListing, networkListing, connectionListing, linkListing, serviceRefListing] as const;
