import { keys } from '#db/keys';
import { keyId } from '#db/batch-get';
import { deleteItem, getItem, putItem } from '#db/items';
import { queryPrefix, scanSortKeyPrefixes } from '#db/query';
import { nameOrderKey } from '#shared/name-order';
import { LISTINGS } from './listings';
import type { Listable, Listing } from './listing';

type StoredItem = Record<string, unknown> & { SK: string; PK: string };
type Repairs = { written: number; removed: number };

/**
 * The one-time backfill of listing items for a table written before they existed, or
 * under another name order (a runtime whose collator orders differently): per listed kind still to
 * do, one Scan of its entities and listing items, then the missing or different listings written and
 * the stale ones removed. Idempotent; recorded per kind under a migration item with the name order's
 * version (and the kind's layout revision), so it runs again only when one of them changes. Run it
 * before the API serves: the local stack does at start, `cdk deploy` before the new code serves (the
 * seeding function's Trigger, functions/seed), see docs/data-model.md.
 */
export async function backfillListings(
  opts: { only?: (listing: Listing<Listable>) => boolean; again?: boolean } = {},
): Promise<Record<string, Repairs>> {
  const version = orderVersion();
  const done: Record<string, Repairs> = {};
  for (const listing of LISTINGS as readonly Listing<Listable>[]) {
    if (opts.only && !opts.only(listing)) continue;
    const marker = keys.migration(`${listing.name.toLowerCase()}-listing`);
    // A kind's later layout (its revision) is a version of its own: only that kind is done again.
    const kindVersion = listing.revision > 1 ? `${version}|r${listing.revision}` : version;
    if (!opts.again && (await getItem<{ version?: string }>(marker))?.version === kindVersion) continue;
    const items = await scanSortKeyPrefixes<StoredItem>([
      `${listing.entityFamily}#`,
      keys.listingFamilyPrefix(listing.family),
    ]);
    done[listing.name] = await repairListings(listing, items);
    await putItem({ ...marker, version: kindVersion, at: new Date().toISOString() });
  }
  return done;
}

/** The search index rebuilt from its entities, whatever the records say (`npm run admin -- reindex-search`). */
export const reindexSearch = () => backfillListings({ only: (l) => l.family === 'SEARCH', again: true });

/**
 * The same repair over one project's partition (two Queries per kind, no Scan): after a restore of
 * the project's items (lifecycle/project-restore.ts), every listing is what its entity says.
 */
export async function rebuildProjectListings(projectId: string): Promise<Record<string, Repairs>> {
  const done: Record<string, Repairs> = {};
  for (const listing of LISTINGS as readonly Listing<Listable>[]) {
    const [entities, listings] = await Promise.all([
      queryPrefix<StoredItem>(projectId, `${listing.entityFamily}#`),
      queryPrefix<StoredItem>(projectId, keys.listingFamilyPrefix(listing.family)),
    ]);
    done[listing.name] = await repairListings(listing, [...entities, ...listings]);
  }
  return done;
}

/** Writes the listings the live entities among `items` want and removes the listings among them no entity wants. */
async function repairListings(listing: Listing<Listable>, items: StoredItem[]): Promise<Repairs> {
  const entityPrefix = `${listing.entityFamily}#`;
  const listingPrefix = keys.listingFamilyPrefix(listing.family);
  const wanted = new Map<string, Record<string, unknown>>();
  for (const item of items) {
    // Catalog entities live in project partitions (a job's `CONN#` items are not connections).
    if (!item.SK.startsWith(entityPrefix) || !item.PK.startsWith(keys.projectPK(''))) continue;
    const entity = listing.decode(item);
    if (!listing.listedWhile(entity)) continue;
    for (const want of listing.items(entity)) wanted.set(keyId(want as never), want);
  }
  const stale: { PK: string; SK: string }[] = [];
  // Listings sharing a family (the search index's, one per kind) are told apart by their items' type.
  const shared = listing.name !== listing.family;
  for (const item of items) {
    if (!item.SK.startsWith(listingPrefix) || (shared && item.type !== listing.itemType)) continue;
    const want = wanted.get(keyId(item));
    if (!want) stale.push({ PK: item.PK, SK: item.SK });
    else if (JSON.stringify(want, Object.keys(want).sort()) === JSON.stringify(item, Object.keys(want).sort()))
      wanted.delete(keyId(item));
  }
  const puts = [...wanted.values()];
  for (let i = 0; i < Math.max(puts.length, stale.length); i += 16) {
    await Promise.all([
      ...puts.slice(i, i + 16).map((p) => putItem(p)),
      ...stale.slice(i, i + 16).map((k) => deleteItem(k)),
    ]);
  }
  return { written: puts.length, removed: stale.length };
}

/** Identifies the name order: the ICU version and the keys of a few names whose order differs between collators. */
const orderVersion = () =>
  `${process.versions.icu ?? 'none'}:${['a-b', 'ab', 'æ', 'ß', 'É', '1', '_'].map(nameOrderKey).join('|')}`;
