/**
 * One collator for every list: `localeCompare` with options builds a new one per comparison (slow on
 * 1,000 items). Made at the first comparison: making it loads the locale's data, some 5 ms of CPU that
 * every function bundling this module paid at import.
 */
let collator: Intl.Collator | undefined;

/** Compares display text ignoring case and accents. */
export const compareText = (a: string, b: string) =>
  (collator ??= new Intl.Collator(undefined, { sensitivity: 'base' })).compare(a, b);

/** Name order for lists (stable under ties by id), ignoring case. */
export const byText =
  <T extends { id: string }>(text: (i: T) => string | null | undefined) =>
  (a: T, b: T) =>
    compareText(text(a) ?? '', text(b) ?? '') || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * A name as its uniqueness compares it: trimmed, ignoring case. The one folding of names: the name
 * sentinels' keys (#db/keys), a rename's "unchanged" (#db/unique-names), an import document's names.
 */
export const foldName = (name: string) => name.trim().toLowerCase();
