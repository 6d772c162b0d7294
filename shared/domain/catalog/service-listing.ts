import { keys } from '#db/keys';
import { keyId, type Key } from '#db/batch-get';
import { isLive } from '#db/live';
import { putStep } from '#db/steps';
import type { TransactStep } from '#db/transact';
import { nameOrderKey } from '#shared/name-order';
import type { Service } from './service-entity';

/**
 * A live service's listing item (issue 26): its place in the environment's name order
 * (`SERVICEBYNAME#<envId>#<order key>#<id>`), carrying what GET /services filters on, so a page
 * is one Query in name order that stops when the page is full, then one BatchGet of the page's
 * services with their floors and groups. It exists exactly while the service is live: every write
 * that creates, renames, refilters, deletes, archives or restores a service writes it in the same
 * transaction (strongly consistent, unlike a GSI), through `serviceListingSteps` and nothing else.
 */

/** The fields lists filter on: a listing item must hold their current values. */
export const FILTERED = ['name', 'tags', 'programming_language', 'provider', 'provider_region', 'provider_zone'] as const;
/** What a page reads with the services (floor type, group names): hints, a stale one costs one more BatchGet, never a wrong answer. */
const HINTS = ['service_floor_id', 'group_id', 'subgroup_id'] as const;

type Listed = Pick<Service, 'id' | 'project_id' | 'environment_id' | (typeof FILTERED)[number] | (typeof HINTS)[number]> & { deleted_at?: string | null; archived_at?: string | null };
export type ServiceListing = Pick<Service, 'id' | (typeof FILTERED)[number] | (typeof HINTS)[number]>;

export const serviceListingKey = (s: Pick<Service, 'project_id' | 'environment_id' | 'name' | 'id'>): Key =>
  keys.serviceListing(s.project_id, s.environment_id, nameOrderKey(s.name), s.id);

/** The listing item of a live service. */
export function serviceListingItem(s: Listed): Record<string, unknown> {
  const item: Record<string, unknown> = { ...serviceListingKey(s), type: 'service_listing', id: s.id };
  for (const f of [...FILTERED, ...HINTS]) item[f] = s[f] ?? (f === 'tags' ? [] : null);
  return item;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * The listing writes of a service going from `before` to `after` (null: did not / no longer
 * exist; a deleted or archived service has no listing): nothing when neither its liveness nor a
 * listed field changes, a Delete when it stops being live, a Put (and the old key's Delete when the
 * name's order key moved) otherwise. A Put writes `after` whole: pair it with `unchangedAsRead`
 * on the service's own update, so that `after` is what the service holds when both commit.
 */
export function serviceListingSteps(before: Listed | null, after: Listed | null): TransactStep[] {
  const was = before && isLive(before) ? before : null;
  const is = after && isLive(after) ? after : null;
  if (!is) return was ? [{ Delete: { Key: serviceListingKey(was) } }] : [];
  if (was && [...FILTERED, ...HINTS].every((f) => same(was[f], is[f]))) return [];
  const put = putStep(serviceListingItem(is));
  const moved = was && keyId(serviceListingKey(was)) !== keyId(serviceListingKey(is));
  return moved ? [{ Delete: { Key: serviceListingKey(was) } }, put] : [put];
}

/**
 * The condition, for the service's own update, that the filtered fields it does not change still
 * hold the values read (a concurrent change of one fails the write, which is then re-run from a new
 * read), so the listing written from the read state is exact. Absent fields of older items count as
 * their defaults.
 */
export function unchangedAsRead(before: Listed, changes: Partial<Service>): { expression: string; names: Record<string, string>; values: Record<string, unknown> } | undefined {
  const kept = FILTERED.filter((f) => !(f in changes));
  if (!kept.length) return undefined;
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const parts = kept.map((f, i) => {
    const v = before[f] ?? (f === 'tags' ? [] : null);
    names[`#lst${i}`] = f;
    values[`:lst${i}`] = v;
    const empty = v === null || (Array.isArray(v) && v.length === 0);
    return empty ? `(attribute_not_exists(#lst${i}) OR #lst${i} = :lst${i})` : `#lst${i} = :lst${i}`;
  });
  return { expression: parts.join(' AND '), names, values };
}

/** Whether a change touches what the listing holds (then `serviceListingSteps` writes it). */
export const changesListing = (changes: Partial<Service>) => [...FILTERED, ...HINTS].some((f) => f in changes);
