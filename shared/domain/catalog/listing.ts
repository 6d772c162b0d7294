import { keys } from '#db/keys';
import type { ListingFamily } from '#db/listing-keys';
import { batchGet, keyId, type Key } from '#db/batch-get';
import { allOf, isLive, liveItem, setFieldsStep, type Condition, LIFECYCLE_FIELDS, type Lifecycle } from '#db/live';
import { queryPage } from '#db/query';
import { putStep } from '#db/steps';
import { CASCADE_STALE, type TransactStep } from '#db/transact';
import type { DomainError } from '#shared/errors';
import { nameOrderKey } from '#shared/name-order';

/**
 * Listing items: a live entity's place in its environment's name order
 * (`<FAMILY>BYNAME#<envId>#<order key>#<id>`, shared/name-order.ts), carrying what its list filters
 * on, so a page is one Query in name order that stops when the page is full, then one BatchGet of
 * the page's entities. One implementation for services (by name), floors (by hostname) and
 * networks (by name), each a `defineListing` below. A listing exists exactly while its entity is
 * live: every write that creates, renames, refilters, deletes, archives or restores one writes it
 * in the same transaction (strongly consistent, unlike a GSI), through `steps`/`change` and nothing else.
 */

/** What every listed entity has: where it lives and the live rule's fields. */
export type Listable = Lifecycle & { id: string; project_id: string; environment_id: string };

export interface ListingSpec<T extends Listable, F extends keyof T & string> {
  family: ListingFamily;
  /**
   * The listing's name when several listings share a family (default: the family): its items'
   * `type` is `<name>_listing` (lower-cased), the backfill repairs and records it by this name.
   */
  name?: string;
  /** The field the list is ordered by, in name order (one of `filtered`)… */
  orderBy?: F;
  /** …or the order key itself (printable, compared as bytes), for a list not in name order. */
  orderKey?: (x: Listable & Partial<T>) => string;
  /** The ranges an entity is listed in (default: its environment's one): one listing item per place. */
  places?: (x: Listable & Partial<T>) => string[];
  /**
   * The places are the project's, not the environment's: the key's environment part is left empty
   * (`<FAMILY><ORDER>##<place>#<order key>#<id>`), so one range holds every environment's listings
   * (the search index, whose order key is then the environment).
   */
  projectWide?: boolean;
  /**
   * Its listing items may commit beside the entity's transaction when that is too large for one
   * (Puts before, Deletes after: db/transact.ts): its readers then skip listings of no live entity
   * and read further (`livePage`), so only use `livePage` to read it.
   */
  beside?: boolean;
  /** The fields the list filters on: a listing item holds their current values. */
  filtered: readonly F[];
  /** More fields a page reads with the entities (hints: a stale one costs a read, never a wrong answer). */
  hints?: readonly F[];
  /**
   * Fields the places are computed from that the listing items do not hold: a write holds only while
   * they are as read (`asRead`), as for held fields, and moves the listing when one changes.
   */
  keyedBy?: readonly F[];
  /**
   * The layout's revision (absent: the first): raised when the places or keys of existing entities'
   * listings change, so that the backfill runs again for this kind on a table it already did.
   */
  revision?: number;
  /** Fields stored as lists (an absent one is empty rather than null). */
  lists?: readonly F[];
  /** While an entity is listed (default: while live, `isLive`). */
  listedWhile?: (x: Lifecycle) => boolean;
  /** The family of the entities' own sort keys, when not the listing's (the backfill reads `<entityFamily>#`). */
  entityFamily?: string;
  /**
   * Listings of other ranges written with this one by every write of the entity (`steps`, `change`),
   * their fields held as this one's are: a writer of the entity cannot miss them.
   */
  with?: readonly Listing<T>[];
  /** The entity's own item key and decoder (the page's BatchGet, the backfill). */
  entityKey: (projectId: string, envId: string, id: string) => Key;
  decode: (item: Record<string, unknown>) => T;
}

/** A listed kind's listing rules (methods, so that any kind's is a `Listing<Listable>`). */
export interface Listing<T extends Listable> {
  readonly family: ListingFamily;
  /** The family, or the name given when several listings share it (the backfill's record, the items' `type`). */
  readonly name: string;
  /** The `type` of its listing items. */
  readonly itemType: string;
  readonly revision: number;
  /** The sort-key family of the listed entities themselves (`SERVICE` for `SERVICE#…`). */
  readonly entityFamily: string;
  /** Whether an entity in this state has listings. */
  listedWhile(x: Lifecycle): boolean;
  decode(item: Record<string, unknown>): T;
  /** The listing items of a live entity (one per place). */
  items(x: Listable & Partial<T>): Record<string, unknown>[];
  steps(before: (Listable & Partial<T>) | null, after: (Listable & Partial<T>) | null): TransactStep[];
  asRead(before: Partial<T>): Condition | undefined;
  touches(fields: Partial<T>): boolean;
  change(
    entityKey: Key,
    before: Listable & Partial<T>,
    fields: Partial<T> & Record<string, unknown>,
    gone: DomainError,
    also?: Condition,
  ): TransactStep[];
  page<L = T>(projectId: string, envId: string, opts: PageOptions<L>): Promise<L[]>;
  entities(projectId: string, envId: string, listings: { id: string }[]): Promise<T[]>;
  livePage<L = T>(projectId: string, envId: string, opts: PageOptions<L>): Promise<T[]>;
}

interface PageOptions<L> {
  offset: number;
  limit?: number;
  keep?: (listing: L) => boolean;
  /** One of the listing's places (default: the environment's range). */
  place?: string;
}

export function defineListing<T extends Listable, F extends keyof T & string>(spec: ListingSpec<T, F>): Listing<T> {
  const companions = spec.with ?? [];
  const listedWhile = spec.listedWhile ?? isLive;
  const held = [...spec.filtered, ...(spec.hints ?? [])];
  /** What a write of the entity must find as read for its listing steps to be exact. */
  const watched = [...held, ...(spec.keyedBy ?? [])];
  const name = spec.name ?? spec.family;
  const itemType = `${name.toLowerCase()}_listing`;
  const stored = (x: Partial<T>, f: F) => x[f] ?? (spec.lists?.includes(f) ? [] : null);
  const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  const orderKey = spec.orderKey ?? ((x: Partial<T>) => nameOrderKey(x[spec.orderBy!] as string | null | undefined));
  const keysOf = (x: Listable & Partial<T>): Key[] =>
    (spec.places?.(x) ?? [undefined]).map((place) =>
      keys.listing(spec.family, x.project_id, spec.projectWide ? '' : x.environment_id, orderKey(x), x.id, place),
    );
  const beside = (step: TransactStep, when: 'before' | 'after'): TransactStep =>
    spec.beside ? { ...step, beside: when } : step;

  /** The listing items of a live entity. */
  const items = (x: Listable & Partial<T>): Record<string, unknown>[] =>
    keysOf(x).map((key) => {
      const out: Record<string, unknown> = { ...key, type: itemType, id: x.id };
      for (const f of held) out[f] = stored(x, f);
      return out;
    });

  /**
   * The listing writes of an entity going from `before` to `after` (null: did not / no longer exist;
   * a deleted or archived entity has no listing): nothing when neither its liveness nor a held field
   * changes, a Delete when it stops being live, a Put (and the old key's Delete when the order key
   * moved) otherwise. A Put writes `after` whole and a Delete the key `before` had: pair them with
   * `asRead` on the entity's own write, so that they are what the entity holds when both commit.
   * While the held fields keep their values, only the places gained are put (those kept are as they were).
   */
  const ownSteps = (before: (Listable & Partial<T>) | null, after: (Listable & Partial<T>) | null): TransactStep[] => {
    const was = before && listedWhile(before) ? keysOf(before) : [];
    const is = after && listedWhile(after) ? items(after) : [];
    const kept = new Set(is.map((i) => keyId(i as Key)));
    const heldSame = held.every((f) => same(before?.[f], after?.[f]));
    const unchanged =
      was.length === is.length &&
      heldSame &&
      watched.every((f) => same(before?.[f], after?.[f])) &&
      was.every((k) => kept.has(keyId(k)));
    if (unchanged) return [];
    const had = new Set(was.map(keyId));
    const deletes = was.filter((k) => !kept.has(keyId(k))).map((k) => beside({ Delete: { Key: k } }, 'after'));
    const puts = heldSame ? is.filter((i) => !had.has(keyId(i as Key))) : is;
    return [...deletes, ...puts.map((i) => beside(putStep(i), 'before'))];
  };
  const steps = (before: (Listable & Partial<T>) | null, after: (Listable & Partial<T>) | null): TransactStep[] => [
    ...ownSteps(before, after),
    ...companions.flatMap((c) => c.steps(before, after)),
  ];

  /**
   * The condition, for the entity's own write, that every field its listing holds still has the
   * value read, those the write sets included: the listing's Delete names the key
   * `before` had and its Put copies `before`'s other fields, so a concurrent change of any of them
   * must fail the write (to be re-run from a new read), or two renames would each leave a listing.
   * Absent fields of older items count as their defaults.
   */
  const asRead = (before: Partial<T>): Condition | undefined =>
    allOf(ownAsRead(before), ...companions.map((c) => c.asRead(before)));
  const ownAsRead = (before: Partial<T>): Condition | undefined => {
    if (!watched.length) return undefined;
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const parts = watched.map((f, i) => {
      const v = stored(before, f);
      names[`#lst${spec.family}${i}`] = f;
      values[`:lst${spec.family}${i}`] = v;
      const empty =
        v === null ||
        (Array.isArray(v) && v.length === 0) ||
        (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0);
      return empty
        ? `(attribute_not_exists(#lst${spec.family}${i}) OR #lst${spec.family}${i} = :lst${spec.family}${i})`
        : `#lst${spec.family}${i} = :lst${spec.family}${i}`;
    });
    return { expression: parts.join(' AND '), names, values };
  };

  /** Whether setting `fields` touches the listing: a held field, or the live rule's. */
  const touches = (fields: Partial<T> & Lifecycle): boolean =>
    [...watched, ...LIFECYCLE_FIELDS].some((f) => f in fields) || companions.some((c) => c.touches(fields));

  /**
   * The write that sets `fields` on a live entity read as `before`, with its listing's writes. When
   * the listing moves, the write holds on condition that the fields it holds are as read, and is
   * refused with CASCADE_STALE otherwise (callers re-run it from a new read with retryWhenStale);
   * otherwise `gone` when the entity is no longer live. `also`: another condition the write needs
   * (refused with CASCADE_STALE too).
   */
  const change = (
    entityKey: Key,
    before: Listable & Partial<T>,
    fields: Partial<T> & Record<string, unknown>,
    gone: DomainError,
    also?: Condition,
  ): TransactStep[] => {
    if (!touches(fields)) return [setFieldsStep(entityKey, fields, also ? CASCADE_STALE : gone, also)];
    return [
      setFieldsStep(entityKey, fields, CASCADE_STALE, allOf(asRead(before), also)),
      ...steps(before, { ...before, ...fields }),
    ];
  };

  /**
   * The first `offset + limit` listings of an environment (all without `limit`) that pass `keep`,
   * from `offset` on: reads stop once they are found (an unfiltered page reads `offset + limit`
   * listing items; a filtered one also what it passed over).
   */
  const page = async <L = Pick<T, 'id' | F>>(projectId: string, envId: string, opts: PageOptions<L>): Promise<L[]> =>
    (
      await queryPage<L>(projectId, keys.listingPrefix(spec.family, envId, opts.place), {
        wanted: opts.offset + (opts.limit ?? Infinity),
        keep: opts.keep,
      })
    ).slice(opts.offset);

  /** The live entities of listings (one BatchGet), in their order: one deleted since its listing was read is left out, as a list read a moment later would. */
  const entities = async (projectId: string, envId: string, listings: { id: string }[]): Promise<T[]> => {
    const entityKeys = listings.map((l) => spec.entityKey(projectId, envId, l.id));
    const items = await batchGet(entityKeys);
    return entityKeys
      .map((k) => liveItem<Record<string, unknown>>(items, k))
      .filter((i) => i !== undefined)
      .map(spec.decode);
  };

  /**
   * A page of live entities for a listing written `beside` its entities (which may hold listings of
   * no live entity for a moment, or after a crash): the listings up to `offset + limit` and their
   * entities, read further by as many as were not live, until the page is full or the range ends.
   * Costs `offset + limit` listings and entities (the offset's too: a listing alone does not say
   * whether it counts).
   */
  const livePage = async <L = Pick<T, 'id' | F>>(
    projectId: string,
    envId: string,
    opts: PageOptions<L>,
  ): Promise<T[]> => {
    const wanted = opts.offset + (opts.limit ?? Infinity);
    for (let extra = 0; ; ) {
      const listings = await page<L & { id: string }>(projectId, envId, {
        ...opts,
        offset: 0,
        limit: wanted + extra,
        keep: opts.keep as never,
      });
      const live = await entities(projectId, envId, listings);
      const dead = listings.length - live.length;
      if (dead <= extra || listings.length < wanted + extra) return live.slice(opts.offset, wanted);
      extra = dead;
    }
  };

  return {
    family: spec.family,
    name,
    itemType,
    revision: spec.revision ?? 1,
    entityFamily: spec.entityFamily ?? spec.family,
    listedWhile,
    decode: spec.decode,
    items,
    steps,
    asRead,
    touches,
    change,
    page,
    entities,
    livePage,
  };
}
