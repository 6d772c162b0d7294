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
