import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { CustomField, Service } from '../api';
import { CUSTOM_FILTER, customFilters, shownValue, useCustomColumns } from '../custom-fields';
import { allServices } from '../services';
import { to } from '../links';
import { FilterForm, SortHeader, sortedByName, useUrlQuery, type FilterSpec } from '../table';
import { Alert, message, Page } from '../ui';
import { applyChange, following, type LiveChange, useLive } from '../live';

const ROW = 40; // px, every row the same height: the table renders only the rows in view
const OVERSCAN = 8;

/** SPEC's filters of GET /services, kept in the address so a filtered list is a link. */
const FILTERS: FilterSpec<'name' | 'tags' | 'language' | 'location' | 'cf'>[] = [
  { key: 'name', label: 'Name contains' },
  { key: 'tags', label: 'Tags (any of, comma-separated)' },
  { key: 'language', label: 'Language' },
  { key: 'location', label: 'Location (provider, region, zone)' },
  CUSTOM_FILTER,
];

type Filters = Record<(typeof FILTERS)[number]['key'], string>;

const queryOf = (f: Filters) => ({
  ...(f.cf.trim() ? { cf: customFilters(f.cf) } : {}),
  ...(f.name.trim() ? { name: f.name.trim() } : {}),
  ...(f.language.trim() ? { language: f.language.trim() } : {}),
  ...(f.location.trim() ? { location: f.location.trim() } : {}),
  ...(f.tags.trim()
    ? {
        tags: f.tags
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean),
      }
    : {}),
});

/**
 * An environment's services: SPEC's filters (name, tags, language, location) sent to the API, every page
 * of its limit/offset paging read, sorted by name either way, in a table that draws only the rows in
 * view (2,000 services scroll as smoothly as 20).
 */
export function Services(props: { projectId: string; envId: string }) {
  const { applied, go } = useUrlQuery(['name', 'tags', 'language', 'location', 'cf', 'sort'] as const);
  const { sort, ...filters } = applied;
  const descending = sort === '-name';
  const [services, setServices] = useState<Service[]>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(true);
  const key = JSON.stringify(filters);
  const [reloads, setReloads] = useState(0);
  const filtered = Object.values(queryOf(filters)).length > 0;
  // Live: a new service appears, a renamed one changes, a deleted one goes (with filters on, only the rows
  // shown change: whether a new one passes them is the API's to say, on the next read).
  const withChange = (list: Service[] | undefined, c: LiveChange) =>
    applyChange(list, c, 'service', (s) => !filtered || (list ?? []).some((x) => x.id === s.id));
  // While the list is read (its pages shown as they come) the changes wait, then apply to the whole list.
  const held = useRef<LiveChange[]>(undefined);
  const scope = { projectId: props.projectId, envId: props.envId };
  useLive(
    scope,
    (c) => {
      // A service shows its group names: a group's change (rare) reads the list again.
      if (c.kind === 'group' || c.kind === 'subgroup') setReloads((n) => n + 1);
      else if (held.current) held.current.push(c);
      else setServices((list) => withChange(list, c));
    },
    () => setReloads((n) => n + 1),
  );

  useEffect(() => {
    const abort = new AbortController();
    setLoading(true);
    setError(undefined);
    held.current = [];
    following(scope)
      .then(() =>
        allServices(
          { project_id: props.projectId, environment_id: props.envId, ...queryOf(filters) },
          (sofar) => !abort.signal.aborted && setServices([...sofar]),
          abort.signal,
        ),
      )
      .then((all) => !abort.signal.aborted && setServices(held.current!.reduce(withChange, all)))
      .catch((err) => !abort.signal.aborted && setError(err))
      .finally(() => {
        if (abort.signal.aborted) return;
        held.current = undefined;
        setLoading(false);
      });
    return () => abort.abort();
  }, [props.projectId, props.envId, key, reloads]);

  const customColumns = useCustomColumns(props.projectId, 'service');
  const sorted = useMemo(() => sortedByName(services ?? [], (s) => s.name, descending), [services, descending]);

  return (
    <Page
      title="Services"
      wide
      actions={
        <a class="button primary" href={to.newService(props.projectId, props.envId)}>
          New service
        </a>
      }
    >
      <FilterForm label="Filter services" filters={FILTERS} applied={filters} onApply={go} />
      {customColumns.picker}
      {error ? <Alert>{message(error)}</Alert> : null}
      <p class="muted" role="status" aria-live="polite">
        {loading
          ? `Loading services… ${services?.length ?? 0}`
          : `${sorted.length} service${sorted.length === 1 ? '' : 's'}`}
      </p>
      <VirtualTable
        rows={sorted}
        caption="Services"
        descending={descending}
        onSort={() => go({ sort: descending ? '' : '-name' })}
        href={(s) => to.service(props.projectId, props.envId, s.id)}
        columns={customColumns.shown}
      />
    </Page>
  );
}

// biome-ignore-start lint/a11y/noAriaHiddenOnFocusable: a spacer row holds nothing, let alone something that takes focus
/** An empty row as tall as the rows it stands for (those not rendered, above or below the view). */
const Spacer = (props: { height: number }) => (
  <tr aria-hidden="true" class="spacer" style={{ height: `${props.height}px` }} />
);
// biome-ignore-end lint/a11y/noAriaHiddenOnFocusable: the spacer ends here

function VirtualTable(props: {
  rows: Service[];
  caption: string;
  descending: boolean;
  onSort: () => void;
  href: (s: Service) => string;
  columns: CustomField[];
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(600);
  useEffect(() => {
    const el = scroller.current!;
    const measure = () => setHeight(el.clientHeight);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  let frame = 0;
  const onScroll = () => {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(() => setTop(scroller.current!.scrollTop));
  };
  const first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
  const last = Math.min(props.rows.length, Math.ceil((top + height) / ROW) + OVERSCAN);
  const visible = props.rows.slice(first, last);
  return (
    // biome-ignore-start lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard to scroll it (WCAG 2.1.1; axe's scrollable-region-focusable)
    <div
      class="table-scroll"
      ref={scroller}
      onScroll={onScroll}
      tabIndex={0}
      role="region"
      aria-label={`${props.caption}, scrollable`}
    >
      <table class="grid" aria-rowcount={props.rows.length + 1}>
        <caption class="sr-only">
          {props.caption}, sorted by name {props.descending ? 'descending' : 'ascending'}
        </caption>
        <thead>
          <tr aria-rowindex={1}>
            <SortHeader label="Name" descending={props.descending} onSort={props.onSort} />
            <th scope="col">Type</th>
            <th scope="col">Location</th>
            <th scope="col">Language</th>
            <th scope="col">Port</th>
            <th scope="col">Group</th>
            <th scope="col">Tags</th>
            {props.columns.map((c) => (
              <th key={c.key} scope="col">
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {first > 0 && <Spacer height={first * ROW} />}
          {visible.map((s, i) => (
            <tr key={s.id} aria-rowindex={first + i + 2} style={{ height: `${ROW}px` }}>
              <th scope="row">
                <a href={props.href(s)}>{s.name}</a>
              </th>
              <td>{s.type}</td>
              <td>{[s.provider, s.provider_region, s.provider_zone].filter(Boolean).join(' / ')}</td>
              <td>{[s.programming_language, s.programming_language_version].filter(Boolean).join(' ')}</td>
              <td>{s.port ?? ''}</td>
              <td>{[s.group_name, s.subgroup_name].filter(Boolean).join(' / ')}</td>
              <td>{s.tags.join(', ')}</td>
              {props.columns.map((c) => (
                <td key={c.key}>{shownValue(s.custom_fields[c.key])}</td>
              ))}
            </tr>
          ))}
          {last < props.rows.length && <Spacer height={(props.rows.length - last) * ROW} />}
        </tbody>
      </table>
      {!props.rows.length && <p class="empty">No services here yet.</p>}
    </div>
    // biome-ignore-end lint/a11y/noNoninteractiveTabindex: the scrollable region ends here
  );
}
