/** How listing items are ordered in their sort keys: the families that have them and each family's range prefix. */

/** The kinds whose lists read listing items: in name order, connections and links in creation order. */
export type ListingFamily = 'SERVICE' | 'FLOOR' | 'NETWORK' | 'CONN' | 'LINK' | 'SERVICEREF' | 'SEARCH';
/** What a family's listing keys are ordered by (the infix of their sort keys). */
export const LISTING_ORDER: Record<ListingFamily, string> = {
  SERVICE: 'BYNAME',
  FLOOR: 'BYNAME',
  NETWORK: 'BYNAME',
  CONN: 'BYTIME',
  LINK: 'BYTIME',
  SERVICEREF: 'BY',
  SEARCH: 'BY',
};
/** A listing range's sort-key prefix: the environment's, or one place in it (a connection's or link's end's range). */
export const listingRange = (family: ListingFamily, envId: string, place?: string) =>
  `${family}${LISTING_ORDER[family]}#${envId}#${place === undefined ? '' : `${place}#`}`;

/** The listings' keys (spread into `keys`, keys.ts). */
export const listingKeys = {
  /**
   * A live service's, floor's or network's place in its environment's name (hostname) order:
   * `<FAMILY>BYNAME#<envId>#<order key of the name>#<id>` (shared/name-order.ts), so a
   * page of its list is one Query that reads what it returns. Written, moved and deleted with the
   * entity in the same transaction (catalog/listing.ts). A connection has three, in creation order:
   * `CONNBYTIME#<envId>#ALL#<created_at>#<position>#<id>` and one per end, `CONNBYTIME#<envId>#<end id>#…`,
   * and a chain member a fourth, `CONNBYTIME#<envId>#CHAIN.<chain id>#…`. A link has one per end
   * (from and to service), `LINKBYTIME#<envId>#<service id>#<created_at>#<id>`, and none for the
   * environment (its whole list reads the links themselves).
   */
  listing: (family: ListingFamily, projectId: string, envId: string, orderKey: string, id: string, place?: string) => ({
    PK: `PROJECT#${projectId}`,
    SK: `${listingRange(family, envId, place)}${orderKey}#${id}`,
  }),
  listingPrefix: (family: ListingFamily, envId: string, place?: string) => listingRange(family, envId, place),
  /**
   * The places of a service's reference listings (catalog/listings.ts `serviceRefListing`):
   * `SERVICEREFBY#<envId>#<place>##<serviceId>`, one per item the service names, so the services that
   * name one (a server's delete, a member's removal, a project user's delete) are one Query of its range.
   */
  serviceRefPlace: {
    floor: (floorId: string) => `FLOOR.${floorId}`,
    member: (userId: string) => `USER.${userId}`,
    projectUser: (projectUserId: string) => `PUSER.${projectUserId}`,
  },
  /** Where every family's listings start (the backfill's Scan). */
  listingFamilyPrefix: (family: ListingFamily) => `${family}${LISTING_ORDER[family]}#`,
};
