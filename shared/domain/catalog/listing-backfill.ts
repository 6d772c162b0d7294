import { keys } from '#db/keys';
import { batchGet, keyId, type Key } from '#db/batch-get';
import { getItem, putItem } from '#db/items';
import { allOf, lifecycleAsRead } from '#db/live';
import { deleteWhenStep, heldAsReadStep, putNewStep, putWhenStep } from '#db/steps';
import { onContention } from '#db/retry';
import { concurrentChange, transact, type TransactStep } from '#db/transact';
import { forEachAtMost } from '#shared/concurrency';
import { queryPrefix, scanSortKeyPrefixes } from '#db/query';
import { nameOrderKey } from '#shared/name-order';
import { LISTINGS } from './listings.ts';
import type { Listable, Listing } from './listing.ts';

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

/**
 * Writes the listings the live entities among `items` want and removes the listings among them no
 * entity wants, each write conditioned on what it read, so that a write of the entity racing the
 * repair (which writes its listings itself, in its own transaction) is not undone by a stale one:
 * per entity, one transaction holding the entity as read (its listing's fields, its lifecycle) beside
 * its listing items' puts, each while the item is as read (absent, or the item found), and deletes,
 * each while the item is as read. Refused, the entity's repair is made again from a new read of it
 * and of its listing items. A listing item whose entity was not found (its id cannot come back) is
 * removed while it is as read.
 */
async function repairListings(listing: Listing<Listable>, items: StoredItem[]): Promise<Repairs> {
  const entityPrefix = `${listing.entityFamily}#`;
  const listingPrefix = keys.listingFamilyPrefix(listing.family);
  // Listings sharing a family (the search index's, one per kind) are told apart by their items' type.
  const shared = listing.name !== listing.family;
  const byId = new Map<string, { entity?: StoredItem; found: StoredItem[] }>();
  const of = (id: string) => byId.get(id) ?? byId.set(id, { found: [] }).get(id)!;
  for (const item of items) {
    // Catalog entities live in project partitions (a job's `CONN#` items are not connections).
    if (item.SK.startsWith(entityPrefix) && item.PK.startsWith(keys.projectPK(''))) of(String(item.id)).entity = item;
    else if (item.SK.startsWith(listingPrefix) && (!shared || item.type === listing.itemType))
      of(String(item.id)).found.push(item);
  }
  const todo = [...byId.values()]
    .map((e) => groupFor(listing, e.entity, e.found))
    .filter((g) => g.puts.length || g.stale.length);
  const done: Repairs = { written: 0, removed: 0 };
  await forEachAtMost(todo, 16, async (g) => {
    const made = await repairEntity(listing, g);
    done.written += made.written;
    done.removed += made.removed;
  });
  return done;
}

/** An entity's repairs: its listing items to put (with the item found under the key, if any) and the stale ones. */
type Group = {
  entity?: { key: Key; read: Listable };
  puts: { item: Record<string, unknown>; read?: StoredItem }[];
  stale: StoredItem[];
};

/** What the entity read as `raw` (absent: none) wants of its listing items `found`. */
function groupFor(listing: Listing<Listable>, raw: StoredItem | undefined, found: StoredItem[]): Group {
  const entity = raw && listing.decode(raw);
  const wanted = entity && listing.listedWhile(entity) ? listing.items(entity) : [];
  const foundAt = new Map(found.map((i) => [keyId(i), i]));
  const wantedAt = new Set(wanted.map((w) => keyId(w as Key)));
  const same = (want: Record<string, unknown>, item: StoredItem | undefined) =>
    item !== undefined &&
    JSON.stringify(want, Object.keys(want).sort()) === JSON.stringify(item, Object.keys(want).sort());
  return {
    entity: raw && entity ? { key: { PK: raw.PK, SK: raw.SK }, read: entity } : undefined,
    puts: wanted.map((item) => ({ item, read: foundAt.get(keyId(item as Key)) })).filter((p) => !same(p.item, p.read)),
    stale: found.filter((i) => !wantedAt.has(keyId(i))),
  };
}

/** Thrown by an entity's repair when a write raced it (what it read has changed). */
const RACED = concurrentChange();

/** One entity's repairs, made again from a new read while a write races them (given up when the races go on). */
async function repairEntity(listing: Listing<Listable>, first: Group): Promise<Repairs> {
  let g = first;
  try {
    return await onContention(
      async (attempt) => {
        if (attempt > 1) g = await reread(listing, g);
        await applyGroup(listing, g);
        return { written: g.puts.length, removed: g.stale.length };
      },
      (err) => err === RACED,
    );
  } catch (err) {
    if (err === RACED) return { written: 0, removed: 0 };
    throw err;
  }
}

/** The entity of `g` and its listing items read again: those it wants now, and those `g` knew of. */
async function reread(listing: Listing<Listable>, g: Group): Promise<Group> {
  const raw = g.entity && (await getItem<StoredItem>(g.entity.key));
  const now = raw && listing.decode(raw);
  const wanted = now && listing.listedWhile(now) ? listing.items(now) : [];
  const known = [...wanted, ...g.puts.map((p) => p.item), ...g.stale].map((i) => ({
    PK: String(i.PK),
    SK: String(i.SK),
  }));
  const found = [...(await batchGet(known)).values()].filter(
    (i): i is StoredItem => typeof i.PK === 'string' && typeof i.SK === 'string',
  );
  return groupFor(listing, raw, found);
}

/** One entity's repairs in one transaction (chunks of one, past the transaction's limit); RACED when refused. */
async function applyGroup(listing: Listing<Listable>, g: Group): Promise<void> {
  const writes: TransactStep[] = [
    ...g.puts.map((p) => (p.read ? putWhenStep(p.item, p.read, RACED) : putNewStep(p.item, RACED))),
    ...g.stale.map((item) => deleteWhenStep({ PK: item.PK, SK: item.SK }, item, RACED)),
  ];
  const held =
    g.entity &&
    heldAsReadStep(g.entity.key, allOf(listing.asRead(g.entity.read), lifecycleAsRead(g.entity.read))!, RACED);
  for (let i = 0; i < writes.length; i += 90) await transact([...(held ? [held] : []), ...writes.slice(i, i + 90)]);
}

/** Identifies the name order: the ICU version and the keys of a few names whose order differs between collators. */
const orderVersion = () =>
  `${process.versions.icu ?? 'none'}:${['a-b', 'ab', 'æ', 'ß', 'É', '1', '_'].map(nameOrderKey).join('|')}`;
