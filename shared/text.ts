/** One collator for every list: `localeCompare` with options builds a new one per comparison (slow on 1,000 items). */
const collator = new Intl.Collator(undefined, { sensitivity: 'base' });

/** Compares display text ignoring case and accents. */
export const compareText = (a: string, b: string) => collator.compare(a, b);

/** Name order for lists (stable under ties by id), ignoring case. */
export const byText = <T extends { id: string }>(text: (i: T) => string | null | undefined) => (a: T, b: T) =>
  compareText(text(a) ?? '', text(b) ?? '') || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
