import { useLayoutEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';

/**
 * The pieces the list screens share: filters, sort order, page or cursor kept in the address (a
 * filtered list is a link, the back button undoes a filter), the filter form, a sortable header
 * cell and a pager.
 */

/** The address's query for `keys` (absent ones are ''), and `go` to move to a changed one. */
export function useUrlQuery<K extends string>(keys: readonly K[]) {
  const { query, route, path } = useLocation();
  const applied = Object.fromEntries(keys.map((k) => [k, query[k] ?? ''])) as Record<K, string>;
  /** The address with `next` changed (other keys of the query dropped). */
  const href = (next: Partial<Record<K, string>>) => withQuery(path, applied, next as Record<string, string>);
  return { applied, href, go: (next: Partial<Record<K, string>>) => route(href(next)), key: JSON.stringify(applied) };
}

/** Names in the order people expect: case-insensitive, numbers by value (web-2 before web-10). */
export const byName = (a: string, b: string) => a.localeCompare(b, undefined, { sensitivity: 'base', numeric: true });

/** `rows` sorted by `name` ascending, or descending when `descending`. */
export function sortedByName<T>(rows: readonly T[], name: (row: T) => string, descending: boolean): T[] {
  const list = [...rows].sort((a, b) => byName(name(a), name(b)));
  return descending ? list.reverse() : list;
}

/** One filter of a list: its query key, its label, and a select's [value, label] options (else a text input). */
export interface FilterSpec<K extends string> {
  key: K;
  label: string;
  options?: [string, string][];
  type?: 'text' | 'datetime-local';
}

/**
 * A search form over a list: the draft is typed freely and applied (to the address) by "Filter";
 * "Clear" drops every filter. `onApply` gets the whole set.
 */
export function FilterForm<K extends string>(props: {
  label: string;
  filters: FilterSpec<K>[];
  applied: Record<K, string>;
  onApply: (f: Record<K, string>) => void;
}) {
  const [draft, setDraft] = useState(props.applied);
  const key = JSON.stringify(props.applied);
  // Reset to the applied filters when they change (Clear, Back, a link) in the same commit: an effect
  // would do it a frame later and wipe whatever was typed in between.
  useLayoutEffect(() => setDraft(props.applied), [key]);
  const empty = Object.fromEntries(props.filters.map((f) => [f.key, ''])) as Record<K, string>;
  return (
    <form
      class="filters"
      role="search"
      aria-label={props.label}
      onSubmit={(e) => {
        e.preventDefault();
        props.onApply(draft);
      }}
    >
      {props.filters.map((f) => (
        // biome-ignore lint/a11y/noLabelWithoutControl: the label wraps its control, a select or an input chosen below
        <label key={f.key}>
          <span>{f.label}</span>
          {f.options ? (
            <select
              name={f.key}
              value={draft[f.key]}
              onChange={(e) => setDraft({ ...draft, [f.key]: e.currentTarget.value })}
            >
              {f.options.map(([v, l]) => (
                <option key={v} value={v}>
                  {l}
                </option>
              ))}
            </select>
          ) : (
            <input
              name={f.key}
              {...({ type: f.type ?? 'text' } as object)}
              value={draft[f.key]}
              onInput={(e) => setDraft({ ...draft, [f.key]: e.currentTarget.value })}
            />
          )}
        </label>
      ))}
      <button type="submit">Filter</button>
      {props.filters.some((f) => props.applied[f.key]) && (
        <button type="button" onClick={() => props.onApply(empty)}>
          Clear
        </button>
      )}
    </form>
  );
}

/** The header cell of a column sorted by name, with a button that turns the order round. */
export function SortHeader(props: { label: string; descending: boolean; onSort: () => void }) {
  const order = props.descending ? 'descending' : 'ascending';
  return (
    <th scope="col" aria-sort={order}>
      <button type="button" class="sort" onClick={props.onSort}>
        {props.label} <span aria-hidden="true">{props.descending ? '▼' : '▲'}</span>
      </button>
    </th>
  );
}

/** Rows per page of the paged tables. */
export const PAGE_SIZE = 20;

/** The rows of page `page` (1-based, clamped to the pages there are), the number of pages and the position of its first row. */
export function pageOf<T>(rows: readonly T[], page: string) {
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
  const current = Math.min(pages, Math.max(1, Number.parseInt(page, 10) || 1));
  const first = (current - 1) * PAGE_SIZE;
  return { rows: rows.slice(first, first + PAGE_SIZE), current, pages, first: first + 1 };
}

/** Previous and next page as links (each page has its address), and where the reader is. */
export function Pager(props: { label: string; current: number; pages: number; href: (page: number) => string }) {
  if (props.pages <= 1) return null;
  return (
    <nav class="pager" aria-label={props.label}>
      {props.current > 1 ? (
        <a href={props.href(props.current - 1)} rel="prev">
          Previous page
        </a>
      ) : (
        <span class="muted" aria-hidden="true">
          Previous page
        </span>
      )}
      <span>
        Page {props.current} of {props.pages}
      </span>
      {props.current < props.pages ? (
        <a href={props.href(props.current + 1)} rel="next">
          Next page
        </a>
      ) : (
        <span class="muted" aria-hidden="true">
          Next page
        </span>
      )}
    </nav>
  );
}

/** The address of the current screen with `changes` made to its query (empty values dropped). */
export function withQuery(path: string, query: Record<string, string>, changes: Record<string, string>): string {
  const params = new URLSearchParams(Object.entries({ ...query, ...changes }).filter(([, v]) => v));
  return `${path}${params.size ? `?${params}` : ''}`;
}
