import type { Matcher } from './patterns.ts';
import type { CustomFieldDefinition, CustomFieldKind, CustomValue, CustomValues } from './definition-entity.ts';

/** Custom field values: each type's rule, a write's values checked and merged, the list filters, the search texts. Pure. */

/** The longest text value (a definition's `max` may lower it): values are held on the item and its listing. */
export const TEXT_MAX = 500;
export const URL_MAX = 2000;

export interface ValueProblem {
  key: string;
  msg: string;
}

type Definition = Pick<
  CustomFieldDefinition,
  'key' | 'type' | 'applies_to' | 'required' | 'default' | 'choices' | 'pattern' | 'min' | 'max' | 'status'
>;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
function isDay(s: string): boolean {
  const m = DAY.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === s;
}
function isWebUrl(s: string): boolean {
  if (!/^https?:\/\//i.test(s)) return false;
  try {
    return Boolean(new URL(s).host);
  } catch {
    return false;
  }
}
const range = (d: Definition, n: number, what: string): string | undefined =>
  d.min !== null && n < d.min
    ? `${what} must be at least ${d.min}`
    : d.max !== null && n > d.max
      ? `${what} must be at most ${d.max}`
      : undefined;

/** Why `value` is not a value of `d` (undefined: it is), and the value as stored. */
export function checkValue(
  d: Definition,
  value: unknown,
  matchers: Map<string, Matcher>,
): { problem: string } | { value: CustomValue } {
  const fail = (problem: string) => ({ problem });
  switch (d.type) {
    case 'text': {
      if (typeof value !== 'string') return fail('Must be a string');
      if (value.length > TEXT_MAX) return fail(`Must be at most ${TEXT_MAX} characters`);
      const tooLong = range(d, value.length, 'Length');
      if (tooLong) return fail(tooLong);
      const matcher = matchers.get(d.key);
      if (matcher && !matcher(value)) return fail(`Must match the pattern ${d.pattern}`);
      return { value };
    }
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return fail('Must be a number');
      const out = range(d, value, 'Value');
      return out ? fail(out) : { value };
    }
    case 'boolean':
      return typeof value === 'boolean' ? { value } : fail('Must be true or false');
    case 'date':
      return typeof value === 'string' && isDay(value) ? { value } : fail('Must be a date (YYYY-MM-DD)');
    case 'url':
      return typeof value === 'string' && value.length <= URL_MAX && isWebUrl(value)
        ? { value }
        : fail(`Must be an http:// or https:// URL of at most ${URL_MAX} characters`);
    case 'select':
      return typeof value === 'string' && d.choices?.includes(value)
        ? { value }
        : fail(`Must be one of: ${(d.choices ?? []).join(', ')}`);
    case 'multiselect': {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || !d.choices?.includes(v)))
        return fail(`Must be a list of: ${(d.choices ?? []).join(', ')}`);
      return { value: [...new Set(value as string[])] };
    }
  }
}

/** The definitions a write of `kind` may set: active ones that apply to it, by key. */
export const definitionsFor = <D extends Definition>(kind: CustomFieldKind, definitions: D[]): Map<string, D> =>
  new Map(definitions.filter((d) => d.status === 'active' && d.applies_to.includes(kind)).map((d) => [d.key, d]));

/**
 * A write's values: on create (`current` undefined) the given ones, then each missing value's
 * default, and a problem for a missing required one; on update the current ones merged with the
 * given (a key set, `null` removed, others kept). A key no active definition of `kind` has, a value
 * of the wrong type or outside the definition's choices, pattern or range is a problem.
 */
export function resolveValues(
  kind: CustomFieldKind,
  given: Record<string, unknown> | null | undefined,
  definitions: Definition[],
  matchers: Map<string, Matcher>,
  current?: CustomValues,
): { values: CustomValues; problems: ValueProblem[] } {
  const defs = definitionsFor(kind, definitions);
  const values: CustomValues = { ...(current ?? {}) };
  const problems: ValueProblem[] = [];
  for (const [key, value] of Object.entries(given ?? {})) {
    const d = defs.get(key);
    if (!d) {
      problems.push({ key, msg: `No custom field '${key}' is defined for ${kind.replace('_', ' ')}s in this project` });
      continue;
    }
    if (value === null || value === undefined) {
      if (current && d.required) problems.push({ key, msg: 'Field required' });
      delete values[key];
      continue;
    }
    const out = checkValue(d, value, matchers);
    if ('problem' in out) problems.push({ key, msg: out.problem });
    else values[key] = out.value;
  }
  if (!current)
    for (const d of defs.values()) {
      if (d.key in values || problems.some((p) => p.key === d.key)) continue;
      if (d.default !== null) values[d.key] = d.default as CustomValue;
      else if (d.required) problems.push({ key: d.key, msg: 'Field required' });
    }
  return { values, problems };
}

/** `cf.<key>=<value>` filters (repeatable: any value; a multiselect matches when it holds any): whether `values` pass them all. */
export function matchesCustomFilters(
  values: CustomValues | null | undefined,
  filters: Record<string, string[]> | undefined,
): boolean {
  return Object.entries(filters ?? {}).every(([key, wanted]) => {
    const held = values?.[key];
    if (held === undefined || held === null) return false;
    const heldList = Array.isArray(held) ? held : [held];
    return heldList.some((h) =>
      wanted.some((w) => (typeof h === 'number' ? w.trim() !== '' && Number(w) === h : String(h) === w)),
    );
  });
}
