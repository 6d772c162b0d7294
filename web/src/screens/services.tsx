import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { allServices, type Service } from '../api';
import { to } from '../links';
import { Alert, message, Page } from '../ui';

const ROW = 40; // px, every row the same height: the table renders only the rows in view
const OVERSCAN = 8;

/** SPEC's filters of GET /services, kept in the address so a filtered list is a link. */
interface Filters {
  name: string;
  tags: string;
  language: string;
  location: string;
}

const queryOf = (f: Filters) => ({
  ...(f.name.trim() ? { name: f.name.trim() } : {}),
  ...(f.language.trim() ? { language: f.language.trim() } : {}),
  ...(f.location.trim() ? { location: f.location.trim() } : {}),
  ...(f.tags.trim() ? { tags: f.tags.split(',').map((t) => t.trim()).filter(Boolean) } : {}),
});

/**
 * An environment's services: SPEC's filters (name, tags, language, location) sent to the API, every page
 * of its limit/offset paging read, sorted by name either way, in a table that draws only the rows in
 * view (2,000 services scroll as smoothly as 20).
 */
export function Services(props: { projectId: string; envId: string }) {
  const { query, route, path } = useLocation();
  const applied: Filters = { name: query.name ?? '', tags: query.tags ?? '', language: query.language ?? '', location: query.location ?? '' };
  const descending = query.sort === '-name';
  const [draft, setDraft] = useState<Filters>(applied);
  const [services, setServices] = useState<Service[]>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(true);
  const key = JSON.stringify(applied);

  useEffect(() => setDraft(applied), [key]);
  useEffect(() => {
    const abort = new AbortController();
    setLoading(true);
    setError(undefined);
    allServices({ project_id: props.projectId, environment_id: props.envId, ...queryOf(applied) }, (sofar) => !abort.signal.aborted && setServices([...sofar]), abort.signal)
      .then((all) => !abort.signal.aborted && setServices(all))
      .catch((err) => !abort.signal.aborted && setError(err))
      .finally(() => !abort.signal.aborted && setLoading(false));
    return () => abort.abort();
  }, [props.projectId, props.envId, key]);

  const sorted = useMemo(() => {
    const list = [...(services ?? [])].sort((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base', numeric: true }));
    return descending ? list.reverse() : list;
  }, [services, descending]);

  const go = (next: Partial<Filters> & { sort?: string }) => {
    const merged = { ...applied, sort: descending ? '-name' : '', ...next };
    const params = new URLSearchParams(Object.entries(merged).filter(([, v]) => v));
    route(`${path}${params.size ? `?${params}` : ''}`);
  };

  return (
    <Page title="Services" wide actions={<a class="button primary" href={to.newService(props.projectId, props.envId)}>New service</a>}>
      <form class="filters" role="search" aria-label="Filter services" onSubmit={(e) => { e.preventDefault(); go(draft); }}>
        {(['name', 'tags', 'language', 'location'] as const).map((f) => (
          <label key={f}>
            <span>{{ name: 'Name contains', tags: 'Tags (any of, comma-separated)', language: 'Language', location: 'Location (provider, region, zone)' }[f]}</span>
            <input name={f} value={draft[f]} onInput={(e) => setDraft({ ...draft, [f]: e.currentTarget.value })} />
          </label>
        ))}
        <button type="submit">Filter</button>
        {Object.values(applied).some(Boolean) && <button type="button" onClick={() => go({ name: '', tags: '', language: '', location: '' })}>Clear</button>}
      </form>
      {error ? <Alert>{message(error)}</Alert> : null}
      <p class="muted" role="status" aria-live="polite">
        {loading ? `Loading services… ${services?.length ?? 0}` : `${sorted.length} service${sorted.length === 1 ? '' : 's'}`}
      </p>
      <VirtualTable
        rows={sorted}
        caption="Services"
        sortLabel={descending ? 'descending' : 'ascending'}
        onSort={() => go({ sort: descending ? '' : '-name' })}
        href={(s) => to.service(props.projectId, props.envId, s.id)}
      />
    </Page>
  );
}

function VirtualTable(props: { rows: Service[]; caption: string; sortLabel: 'ascending' | 'descending'; onSort: () => void; href: (s: Service) => string }) {
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
    <div class="table-scroll" ref={scroller} onScroll={onScroll} tabIndex={0} role="region" aria-label={`${props.caption}, scrollable`}>
      <table class="grid" aria-rowcount={props.rows.length + 1}>
        <caption class="sr-only">{props.caption}, sorted by name {props.sortLabel}</caption>
        <thead>
          <tr aria-rowindex={1}>
            <th scope="col" aria-sort={props.sortLabel}>
              <button type="button" class="sort" onClick={props.onSort}>Name <span aria-hidden="true">{props.sortLabel === 'ascending' ? '▲' : '▼'}</span></button>
            </th>
            <th scope="col">Type</th>
            <th scope="col">Location</th>
            <th scope="col">Language</th>
            <th scope="col">Port</th>
            <th scope="col">Group</th>
            <th scope="col">Tags</th>
          </tr>
        </thead>
        <tbody>
          {first > 0 && <tr aria-hidden="true" class="spacer" style={{ height: `${first * ROW}px` }} />}
          {visible.map((s, i) => (
            <tr key={s.id} aria-rowindex={first + i + 2} style={{ height: `${ROW}px` }}>
              <th scope="row"><a href={props.href(s)}>{s.name}</a></th>
              <td>{s.type}</td>
              <td>{[s.provider, s.provider_region, s.provider_zone].filter(Boolean).join(' / ')}</td>
              <td>{[s.programming_language, s.programming_language_version].filter(Boolean).join(' ')}</td>
              <td>{s.port ?? ''}</td>
              <td>{[s.group_name, s.subgroup_name].filter(Boolean).join(' / ')}</td>
              <td>{s.tags.join(', ')}</td>
            </tr>
          ))}
          {last < props.rows.length && <tr aria-hidden="true" class="spacer" style={{ height: `${(props.rows.length - last) * ROW}px` }} />}
        </tbody>
      </table>
      {!props.rows.length && <p class="empty">No services here yet.</p>}
    </div>
  );
}
