import { nameKey } from '../problems.ts';

/** How the walk compares the document with the environment: stored values, and entities by name. */

/** Equality of stored values, whatever the key order of maps read back from the table. */
export const canonical = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(canonical)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.entries(v)
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([k, x]) => [k, canonical(x)]),
        )
      : v;
/** Equality of stored values, whatever the key order of maps read back from the table; null and absent alike. */
export const same = (a: unknown, b: unknown) =>
  JSON.stringify(canonical(a ?? null)) === JSON.stringify(canonical(b ?? null));

/** The fields of `wanted` whose value differs from `stored`. */
export function changed(stored: Record<string, unknown>, wanted: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(wanted).filter(([k, v]) => !same(stored[k], v)));
}

/** The same strings, whatever their order and repeats (tag and network id sets). */
export const sameSet = (a: string[], b: string[]) => same([...new Set(a)].sort(), [...new Set(b)].sort());

/** The one entity per key (lower-cased name); more than one live entity of a name in the environment is ambiguous. */
export function byName<T>(xs: T[], name: (x: T) => string | null | undefined): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const x of xs) {
    const n = name(x);
    if (!n) continue;
    const key = nameKey(n);
    map.set(key, [...(map.get(key) ?? []), x]);
  }
  return map;
}
