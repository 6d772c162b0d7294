import type { SearchText } from './entries.ts';

/** A value of a url or date field, by its shape (the type checks hold it to exactly that shape). */
const URL_OR_DAY = /^(?:https?:\/\/|\d{4}-\d{2}-\d{2}$)/i;

/**
 * The texts a search finds an item by: its text, select and multiselect values, each as
 * `custom_fields.<key>`. Told apart from the item alone (the index is written from the item, without its
 * project's definitions): strings and lists of strings, but not a url's or a date's value (their parts,
 * "https", "com", a year, would match far too much). A text value shaped like a url or a day is not
 * indexed either; decision 0968.
 */
export function searchableCustomValues(customFields: unknown): SearchText[] {
  const out: SearchText[] = [];
  if (!customFields || typeof customFields !== 'object') return out;
  for (const [key, value] of Object.entries(customFields))
    for (const v of Array.isArray(value) ? value : [value])
      if (typeof v === 'string' && v && !URL_OR_DAY.test(v)) out.push({ field: `custom_fields.${key}`, value: v });
  return out;
}
