import { floorListing, serviceListing, type Listable, type Listing } from '#domain/catalog';
import type { TransactStep } from '#db/transact';
import type { ArchivableKind } from './selection.ts';

/** Services and floors leave their environment's name order when archived and come back when restored (catalog's listing items). */
const LISTED: Partial<Record<ArchivableKind, Listing<Listable>>> = {
  services: serviceListing,
  service_floors: floorListing,
};
export function listingSteps(
  kind: ArchivableKind,
  item: Record<string, unknown>,
  verb: 'archive' | 'restore',
): TransactStep[] {
  const listing = LISTED[kind];
  if (!listing) return [];
  const entity = listing.decode(item);
  // From the state read to the archived (restored) one: listings kept while not deleted (a service's references) stay.
  return verb === 'archive'
    ? listing.steps(entity, { ...entity, archived_at: 'archived' })
    : listing.steps({ ...entity, archived_at: entity.archived_at ?? 'archived' }, { ...entity, archived_at: null });
}
/** The archive's condition that the listing it removes is the one of the item as read (a concurrent rename refuses it). */
export const listedAsRead = (kind: ArchivableKind, item: Record<string, unknown>) =>
  LISTED[kind]?.asRead(LISTED[kind]!.decode(item));
