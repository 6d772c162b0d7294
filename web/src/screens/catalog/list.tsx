import type { ComponentChildren } from 'preact';
import { useMemo, useRef } from 'preact/hooks';
import { FilterForm, Pager, pageOf, SortHeader, sortedByName, useUrlQuery, type FilterSpec } from '../../table';
import { TableWrap } from '../../table-wrap';
import { Loaded, Page, useLoad } from '../../ui';
import { following, useLive, type LiveChange, type LiveScope } from '../../live';
import { shownValue, useCustomColumns, type CustomKind } from '../../custom-fields';

/** A column of a list: its header and what a row shows in it. */
export type Column<T> = [string, (row: T) => ComponentChildren];

/**
 * An environment's servers or networks: SPEC's filters sent to the API and kept in the address with the
 * sort order and the page; the answer (SPEC: a plain array, no paging) sorted by name and shown a page
 * at a time, each page a link.
 */
export function CatalogList<T extends { id: string; custom_fields: Record<string, unknown> }, K extends string>(props: {
  title: string;
  /** "server" / "servers": the count line and the empty table. */
  noun: [string, string];
  newHref: string;
  newLabel: string;
  filters: FilterSpec<K>[];
  load: (filters: Record<K, string>, signal: AbortSignal) => Promise<T[]>;
  name: (row: T) => string;
  nameLabel: string;
  href: (row: T) => string;
  columns: Column<T>[];
  /** Read again when an item of this kind changes in the environment (at most every 300 ms). */
  live?: { scope: LiveScope; kind: LiveChange['kind'] };
  /** The project and kind whose custom fields may be shown as optional columns after `columns`. */
  custom: { projectId: string; kind: CustomKind };
}) {
  const keys = useMemo(() => [...props.filters.map((f) => f.key), 'sort', 'page'] as const, []);
  const { applied, go, href } = useUrlQuery<K | 'sort' | 'page'>(keys);
  const { sort, page, ...filters } = applied;
  const descending = sort === '-name';
  const key = JSON.stringify(filters);
  // Read once the live feed follows the environment (`following`): no change made meanwhile is missed.
  const rows = useLoad(
    async (signal) => {
      if (props.live) await following(props.live.scope);
      return props.load(filters as Record<K, string>, signal);
    },
    [key],
  );
  const pending = useRef<ReturnType<typeof setTimeout>>(undefined);
  const later = () => {
    clearTimeout(pending.current);
    pending.current = setTimeout(rows.reload, 300);
  };
  useLive(props.live?.scope, (c) => c.kind === props.live?.kind && later(), later);
  const sorted = useMemo(() => sortedByName(rows.data ?? [], props.name, descending), [rows.data, descending]);
  const shown = pageOf(sorted, page);
  const [one, many] = props.noun;
  const custom = useCustomColumns(props.custom.projectId, props.custom.kind);
  const columns: Column<T>[] = [
    ...props.columns,
    ...custom.shown.map((d): Column<T> => [d.label, (row) => shownValue(row.custom_fields[d.key])]),
  ];
  return (
    <Page
      title={props.title}
      wide
      actions={
        <a class="button primary" href={props.newHref}>
          {props.newLabel}
        </a>
      }
    >
      <FilterForm
        label={`Filter ${many}`}
        filters={props.filters}
        applied={filters as Record<K, string>}
        onApply={(f) => go({ ...f, page: '' } as Partial<Record<K | 'sort' | 'page', string>>)}
      />
      {custom.picker}
      <Loaded state={rows} label={many}>
        {() => (
          <>
            <p class="muted" role="status" aria-live="polite">
              {sorted.length} {sorted.length === 1 ? one : many}
              {shown.pages > 1 ? `, ${shown.first}–${shown.first + shown.rows.length - 1} shown` : ''}
            </p>
            <TableWrap label={`${props.title}, scrollable`}>
              <table class="grid paged">
                <caption class="sr-only">
                  {props.title}, sorted by {props.nameLabel.toLowerCase()} {descending ? 'descending' : 'ascending'}
                </caption>
                <thead>
                  <tr>
                    <SortHeader
                      label={props.nameLabel}
                      descending={descending}
                      onSort={() =>
                        go({ sort: descending ? '' : '-name', page: '' } as Partial<
                          Record<K | 'sort' | 'page', string>
                        >)
                      }
                    />
                    {columns.map(([label]) => (
                      <th key={label} scope="col">
                        {label}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {shown.rows.map((row) => (
                    <tr key={row.id}>
                      <th scope="row">
                        <a href={props.href(row)}>{props.name(row)}</a>
                      </th>
                      {columns.map(([label, cell]) => (
                        <td key={label}>{cell(row)}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
              {!sorted.length && (
                <p class="empty">
                  No {many} {Object.values(filters).some(Boolean) ? 'match these filters' : 'here yet'}.
                </p>
              )}
            </TableWrap>
            <Pager
              label={`Pages of ${many}`}
              current={shown.current}
              pages={shown.pages}
              href={(p) => href({ page: p > 1 ? String(p) : '' } as Partial<Record<K | 'sort' | 'page', string>>)}
            />
          </>
        )}
      </Loaded>
    </Page>
  );
}
