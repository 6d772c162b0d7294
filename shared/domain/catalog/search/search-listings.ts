import { keys } from '#db/keys';
import { defineListing, type Listable, type Listing } from '../listing.ts';
import { serviceEntity, type Service } from '../service-entity.ts';
import { floorEntity, type Floor } from '../floor-entity.ts';
import { networkEntity, type Network } from '../network-entity.ts';
import { searchEntries, type SearchKind, type SearchText } from './entries.ts';
import { searchableCustomValues } from './custom-values.ts';

/**
 * The search index as listings (listing.ts): one item per entry of a live service, floor or network,
 * `SEARCHBY##<place>#<envId>#<id>` in the project's partition (one range per place across the
 * project's environments, so a search of the project reads each place once), written by every write of the entity
 * in its own transaction as a companion of its name listing (`with` in listings.ts), so create,
 * rename, tag change, delete, archive, restore, import and discovery all move it, conditioned on the
 * fields it is computed from as read (`keyedBy`). The items hold nothing but their `type` (the kind)
 * and `id`: a change puts only the places gained and deletes the places lost.
 */

/**
 * More texts an item is found by, beside its own fields (e.g. its custom fields' values); the
 * fields they are read from go into `keyedBy` below, so that a write holds them as read.
 */
const extraTexts = (item: Record<string, unknown>): SearchText[] => searchableCustomValues(item.custom_fields);

const placesOf = (kind: SearchKind) => (x: Record<string, unknown>) =>
  searchEntries(kind, x, extraTexts(x)).map((e) => e.place);

export const serviceSearchListing = defineListing<Service, 'name' | 'tags' | 'custom_fields'>({
  family: 'SEARCH',
  name: 'SERVICE_SEARCH',
  entityFamily: 'SERVICE',
  orderKey: (x) => x.environment_id,
  projectWide: true,
  places: placesOf('service'),
  filtered: [],
  keyedBy: ['name', 'tags', 'custom_fields'],
  lists: ['tags'],
  entityKey: keys.service,
  decode: serviceEntity.decode,
});

export const floorSearchListing = defineListing<
  Floor,
  'hostname' | 'ip_address' | 'ip_addresses' | 'tags' | 'custom_fields'
>({
  family: 'SEARCH',
  name: 'FLOOR_SEARCH',
  entityFamily: 'FLOOR',
  orderKey: (x) => x.environment_id,
  projectWide: true,
  places: placesOf('service_floor'),
  filtered: [],
  keyedBy: ['hostname', 'ip_address', 'ip_addresses', 'tags', 'custom_fields'],
  lists: ['ip_addresses', 'tags'],
  entityKey: keys.floor,
  decode: floorEntity.decode,
});

export const networkSearchListing = defineListing<Network, 'name' | 'cidr' | 'custom_fields'>({
  family: 'SEARCH',
  name: 'NETWORK_SEARCH',
  entityFamily: 'NETWORK',
  orderKey: (x) => x.environment_id,
  projectWide: true,
  places: placesOf('network'),
  filtered: [],
  keyedBy: ['name', 'cidr', 'custom_fields'],
  entityKey: keys.network,
  decode: networkEntity.decode,
});

/** Each kind's index: the entity's key and decoder, and the `type` of its entries. */
export const SEARCH_LISTINGS: Record<SearchKind, Listing<Listable>> = {
  service: serviceSearchListing as unknown as Listing<Listable>,
  service_floor: floorSearchListing as unknown as Listing<Listable>,
  network: networkSearchListing as unknown as Listing<Listable>,
};

/** The entries of an item as its index holds them (the reader checks a hit against them). */
export const entriesOf = (kind: SearchKind, item: Record<string, unknown>) =>
  searchEntries(kind, item, extraTexts(item));
