import { keys } from '#db/keys';
import { defineListing } from './listing';
import { serviceEntity, type Service } from './service-entity';
import { floorEntity, type Floor } from './floor-entity';
import { networkEntity, type Network } from './network-entity';

/** The three lists read from listing items (listing.ts, issue 26), each with what its list filters on. */

/** GET /services: by name; filters name, tags, language, location; the page's floor type and group names read with it. */
export const serviceListing = defineListing<Service, 'name' | 'tags' | 'programming_language' | 'provider' | 'provider_region' | 'provider_zone' | 'service_floor_id' | 'group_id' | 'subgroup_id'>({
  family: 'SERVICE', orderBy: 'name',
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

export const LISTINGS = [serviceListing, floorListing, networkListing] as const;
