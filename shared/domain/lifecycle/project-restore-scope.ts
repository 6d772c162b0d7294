import { keys } from '#db/keys';
import { keyId, type Key } from '#db/batch-get';

/**
 * What a restore of one project (docs/restore.md) copies back, as pure rules: which items are the
 * project's, which of them stay as the live table has them, what differs between the restored copy
 * and the live table. The reads and writes are project-restore.ts.
 */

export type StoredItem = Record<string, unknown> & Key;

/**
 * Items of the project's partition that stay as they are live: the history of its imports and
 * exports (what happened, like the audit log, which lives in its own partition and only gains the
 * restore's entry), the journals of staged writes in flight and the environments' import locks (a
 * live import's own bookkeeping).
 */
const KEPT_LIVE_PREFIXES = [keys.impexRecordPrefix, keys.stagedWritesPrefix, keys.importLockPrefix];

/**
 * Whether an item is the project's to restore: in its partition (bar the kept ones), or a side item
 * elsewhere that names the project (`project_id`: id lookups, membership mirrors, the project-name
 * sentinel, archived markers, open-invitation entries). Every write of a restore is guarded by it.
 */
export function isProjectItem(projectId: string, item: StoredItem): boolean {
  if (item.PK === keys.projectPK(projectId)) return !KEPT_LIVE_PREFIXES.some((p) => item.SK.startsWith(p));
  return item.project_id === projectId;
}

/** The kind an item is counted under in a restore's report: its sort key's first segment, prefixed by its partition's kind outside the project's partition. */
export function kindOf(item: Key): string {
  const sk = item.SK.split('#')[0];
  return item.PK.startsWith(keys.projectPK('')) ? sk : `${item.PK.split('#')[0]}/${sk}`;
}

/** Ids whose `ID#<id>` lookup may be the project's: every item's `id` (listings repeat their entity's; the set removes them). */
export function lookupKeys(items: StoredItem[]): Key[] {
  const ids = new Set<string>();
  for (const item of items) if (typeof item.id === 'string') ids.add(item.id);
  return [...ids].map((id) => keys.idLookup(id));
}

/** The accounts whose partitions may hold the project's side items: its owner and members, as either table has them. */
export function sideAccounts(projectId: string, items: StoredItem[]): string[] {
  const users = new Set<string>();
  for (const item of items) {
    if (item.PK !== keys.projectPK(projectId)) continue;
    if (item.SK === keys.project(projectId).SK && typeof item.owner_id === 'string') users.add(item.owner_id);
    if (item.SK.startsWith(keys.memberPrefix)) users.add(item.SK.slice(keys.memberPrefix.length));
  }
  return [...users];
}

/** The sort-key prefixes of an account's partition where the project's side items live. */
export const sideItemPrefixes = (projectId: string) => [
  keys.membership('', projectId).SK,
  keys.projectNamePrefix,
  keys.archivedPrefix(),
];

/** An item's attributes in a fixed order, so two copies of one item compare equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value instanceof Set) return canonical([...value].sort());
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

export interface RestoreDiff {
  /** Items of the restored copy that the live table lacks or holds otherwise. */
  puts: StoredItem[];
  /** Keys of the project's live items that the restored copy does not have. */
  deletes: Key[];
  /** Counts by kind (kindOf): put, deleted, unchanged. */
  byKind: Record<string, { put: number; deleted: number; unchanged: number }>;
}

/** What makes the project's live items equal to its restored ones; items that are not the project's (isProjectItem) are ignored on both sides. */
export function restoreDiff(projectId: string, restored: StoredItem[], live: StoredItem[]): RestoreDiff {
  const diff: RestoreDiff = { puts: [], deletes: [], byKind: {} };
  const count = (item: Key, what: 'put' | 'deleted' | 'unchanged') =>
    ((diff.byKind[kindOf(item)] ??= { put: 0, deleted: 0, unchanged: 0 })[what] += 1);
  const liveByKey = new Map(live.filter((i) => isProjectItem(projectId, i)).map((i) => [keyId(i), i]));
  for (const item of restored) {
    if (!isProjectItem(projectId, item)) continue;
    const current = liveByKey.get(keyId(item));
    liveByKey.delete(keyId(item));
    if (current && canonical(current) === canonical(item)) count(item, 'unchanged');
    else {
      diff.puts.push(item);
      count(item, 'put');
    }
  }
  for (const item of liveByKey.values()) {
    diff.deletes.push({ PK: item.PK, SK: item.SK });
    count(item, 'deleted');
  }
  return diff;
}
