import { keys } from '#db/keys';
import { defineListing } from './listing.ts';
import { isDeleted } from '#db/live';
import { serviceEntity, type Service } from './service-entity.ts';
import { floorEntity, type Floor } from './floor-entity.ts';
import { networkEntity, type Network } from './network-entity.ts';
import { connectionListing, linkListing } from './topology/listings.ts';
import { floorSearchListing, networkSearchListing, serviceSearchListing } from './search/search-listings.ts';

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
export const serviceRefListing = defineListing<
  Service,
  'service_floor_id' | 'responsible_user_id' | 'responsible_project_user_id'
>({
  family: 'SERVICEREF',
  entityFamily: 'SERVICE',
  orderKey: () => '',
  places: (s) => [
    ...(s.service_floor_id ? [keys.serviceRefPlace.floor(s.service_floor_id)] : []),
    ...(s.responsible_user_id ? [keys.serviceRefPlace.member(s.responsible_user_id)] : []),
    ...(s.responsible_project_user_id ? [keys.serviceRefPlace.projectUser(s.responsible_project_user_id)] : []),
  ],
  listedWhile: (s) => !isDeleted(s),
  filtered: ['service_floor_id', 'responsible_user_id', 'responsible_project_user_id'],
  entityKey: keys.service,
  decode: serviceEntity.decode,
});

/** GET /services: by name; filters name, tags, language, location; the page's floor type and group names read with it. */
export const serviceListing = defineListing<
  Service,
  | 'name'
  | 'tags'
  | 'programming_language'
  | 'provider'
  | 'provider_region'
  | 'provider_zone'
  | 'service_floor_id'
  | 'group_id'
  | 'subgroup_id'
  | 'custom_fields'
>({
  family: 'SERVICE',
  orderBy: 'name',
  with: [serviceRefListing, serviceSearchListing],
  filtered: ['name', 'tags', 'programming_language', 'provider', 'provider_region', 'provider_zone', 'custom_fields'],
  hints: ['service_floor_id', 'group_id', 'subgroup_id'],
  lists: ['tags'],
  entityKey: keys.service,
  decode: serviceEntity.decode,
});
export type ServiceListing = Pick<
  Service,
  | 'id'
  | 'name'
  | 'tags'
  | 'programming_language'
  | 'provider'
  | 'provider_region'
  | 'provider_zone'
  | 'service_floor_id'
  | 'group_id'
  | 'subgroup_id'
  | 'custom_fields'
>;

/** GET /service-floors: by hostname; filters hostname, tags, type, location, zone. */
export const floorListing = defineListing<
  Floor,
  'hostname' | 'tags' | 'floor_type' | 'provider' | 'provider_region' | 'provider_zone' | 'custom_fields'
>({
  family: 'FLOOR',
  orderBy: 'hostname',
  with: [floorSearchListing],
  filtered: ['hostname', 'tags', 'floor_type', 'provider', 'provider_region', 'provider_zone', 'custom_fields'],
  lists: ['tags'],
  entityKey: keys.floor,
  decode: floorEntity.decode,
});
export type FloorListing = Pick<
  Floor,
  'id' | 'hostname' | 'tags' | 'floor_type' | 'provider' | 'provider_region' | 'provider_zone' | 'custom_fields'
>;

/** GET /networks: by name; `q` searches name, CIDR, gateway and VLAN; filters VLAN, mask and range (from the CIDR). */
export const networkListing = defineListing<Network, 'name' | 'cidr' | 'gateway' | 'vlan_id' | 'custom_fields'>({
  family: 'NETWORK',
  orderBy: 'name',
  with: [networkSearchListing],
  filtered: ['name', 'cidr', 'gateway', 'vlan_id', 'custom_fields'],
  entityKey: keys.network,
  decode: networkEntity.decode,
});
export type NetworkListing = Pick<Network, 'id' | 'name' | 'cidr' | 'gateway' | 'vlan_id' | 'custom_fields'>;

export const LISTINGS = [
  serviceListing,
  floorListing,
  networkListing,
  connectionListing,
  linkListing,
  serviceRefListing,
  serviceSearchListing,
  floorSearchListing,
  networkSearchListing,
] as const;
