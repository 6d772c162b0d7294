/** The export's order and shape: code-unit order (ties by the whole entry), empty fields left out. */

/** The value without its empty fields (null, undefined, empty lists), nested objects in lists too. */
export function compact<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null || v === undefined || (Array.isArray(v) && !v.length)) continue;
    out[k] = Array.isArray(v) ? v.map((x) => (typeof x === 'object' && x !== null ? compact(x) : x)) : v;
  }
  return out as T;
}

/** Code-unit order (locale-independent). */
export const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** Code-unit order of `key`, ties by the whole entry. */
export const byKey =
  <T>(key: (x: T) => string) =>
  (a: T, b: T) =>
    byText(key(a), key(b)) || byText(JSON.stringify(a), JSON.stringify(b));

/** Custom field values as a document has them: none when the item has none (compact then leaves the field out). */
export const valuesOrNone = (values: Record<string, unknown> | undefined) =>
  values && Object.keys(values).length ? values : undefined;
