import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import type { paths } from '@infracat/client/schema';
import { api, ok } from './api';
import { to } from './links';

type SearchResult = NonNullable<
  paths['/search']['get']['responses'][200]['content']['application/json']
>['results'][number];

const GROUPS: { kind: SearchResult['kind']; label: string }[] = [
  { kind: 'service', label: 'Services' },
  { kind: 'service_floor', label: 'Servers' },
  { kind: 'network', label: 'Networks' },
];
/** The input's role (WAI-ARIA's combobox; given apart, as Preact's types and the linter expect a `list` with it). */
const COMBOBOX: Record<string, string> = { role: 'combobox' };
/** The fields a result is found by, as a person reads them (a custom field: its definition's label). */
const FIELD_LABELS: Record<string, string> = {
  name: 'Name',
  hostname: 'Hostname',
  tags: 'Tag',
  ip_address: 'Address',
  ip_addresses: 'Address',
  cidr: 'CIDR',
};
const CUSTOM = 'custom_fields.';

type Labels = Record<string, string>;

/**
 * The labels of the project's custom fields by `custom_fields.<key>`, read when a result is found by one
 * whose label is not in `known` yet (a field defined since is read again), then kept there for the box's
 * later searches in that project until it closes (a label renamed meanwhile shows at the next opening).
 */
async function customLabels(projectId: string, results: SearchResult[], known: Map<string, Labels>) {
  const kept = known.get(projectId) ?? {};
  const fields = results.map((r) => r.match.field).filter((f) => f.startsWith(CUSTOM));
  if (fields.every((f) => f in kept)) return kept;
  const defs = await ok(
    api.GET('/projects/{project_id}/custom-fields', { params: { path: { project_id: projectId } } }),
  ).catch(() => undefined);
  if (!defs) return kept;
  const labels: Labels = Object.fromEntries(defs.map((d) => [CUSTOM + d.key, d.label]));
  // A field no definition names any more (its values outlive it) shows by its key, and is not read for again.
  for (const f of fields) labels[f] ??= f;
  known.set(projectId, labels);
  return labels;
}

/** How long typing pauses before the search is asked (ms). */
const PAUSE_MS = 180;

const pageOf = (projectId: string, r: SearchResult) =>
  r.kind === 'service'
    ? to.service(projectId, r.environment_id, r.id)
    : r.kind === 'service_floor'
      ? to.server(projectId, r.environment_id, r.id)
      : to.network(projectId, r.environment_id, r.id);

/** Whether a key press is typing into a field (then `/` is a character, not the shortcut). */
const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement &&
  (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));

/**
 * The header's search box (GET /search over the project): results grouped by kind, best first within
 * each; `/` or Ctrl-K (⌘K) focuses it, the arrow keys move through the results, Enter opens one and
 * Escape closes the list. A combobox with a listbox (WAI-ARIA's pattern), the active option named by
 * `aria-activedescendant`.
 */
export function SearchBox(props: { projectId: string }) {
  const { route } = useLocation();
  const input = useRef<HTMLInputElement>(null);
  const knownLabels = useRef(new Map<string, Labels>());
  const [q, setQ] = useState('');
  const [results, setResults] = useState<SearchResult[] | undefined>();
  const [labels, setLabels] = useState<Labels>({});
  const [failed, setFailed] = useState(false);
  const [active, setActive] = useState(0);
  const [open, setOpen] = useState(false);
  // What the box learnt of the project's custom field labels lasts while it is open (customLabels).
  useEffect(() => {
    if (!open) knownLabels.current.clear();
  }, [open]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const shortcut = (e.key === 'k' || e.key === 'K') && (e.ctrlKey || e.metaKey);
      if (shortcut || (e.key === '/' && !typing(e.target) && !e.ctrlKey && !e.metaKey && !e.altKey)) {
        e.preventDefault();
        input.current?.focus();
        input.current?.select();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  useEffect(() => {
    const text = q.trim();
    if (!text) {
      setResults(undefined);
      return;
    }
    const abort = new AbortController();
    const timer = setTimeout(() => {
      ok(api.GET('/search', { params: { query: { project_id: props.projectId, q: text } }, signal: abort.signal }))
        .then(async (data) => ({
          data,
          labels: await customLabels(props.projectId, data.results, knownLabels.current),
        }))
        .then(
          ({ data, labels }) => {
            if (abort.signal.aborted) return; // a newer search is under way
            setLabels(labels);
            setResults(data.results);
            setFailed(false);
            setActive(0);
          },
          () => !abort.signal.aborted && setFailed(true),
        );
    }, PAUSE_MS);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [q, props.projectId]);

  // Grouped by kind; the keyboard walks them in the order shown.
  const groups = GROUPS.map((g) => ({ ...g, items: (results ?? []).filter((r) => r.kind === g.kind) })).filter(
    (g) => g.items.length,
  );
  const shown = groups.flatMap((g) => g.items);
  const expanded = open && q.trim() !== '' && (results !== undefined || failed);
  const choose = (r: SearchResult) => {
    setOpen(false);
    setQ('');
    route(pageOf(props.projectId, r));
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      setOpen(true);
      if (shown.length) setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : shown.length - 1)) % shown.length);
    } else if (e.key === 'Enter' && expanded && shown[active]) {
      e.preventDefault();
      choose(shown[active]);
    } else if (e.key === 'Escape') {
      setOpen(false);
    }
  };
  const optionId = (i: number) => `search-option-${i}`;

  return (
    <div class="search-box">
      <label class="sr-only" for="site-search">
        Search the project
      </label>
      {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: the input is a combobox (role given in COMBOBOX), which takes aria-expanded */}
      <input
        ref={input}
        id="site-search"
        type="search"
        {...COMBOBOX}
        autocomplete="off"
        placeholder="Search (/)"
        aria-autocomplete="list"
        aria-expanded={expanded ? 'true' : 'false'}
        aria-controls="site-search-results"
        aria-activedescendant={expanded && shown.length ? optionId(active) : undefined}
        value={q}
        onInput={(e) => {
          setQ(e.currentTarget.value);
          setOpen(true);
        }}
        onFocus={() => setOpen(true)}
        // Closed a moment after focus leaves, unless it came back meanwhile (a window losing and regaining focus): a late
        // close would hide the results of what was typed since.
        onBlur={() => setTimeout(() => document.activeElement !== input.current && setOpen(false), 150)}
        onKeyDown={onKeyDown}
      />
      <div
        id="site-search-results"
        role="listbox"
        aria-label="Search results"
        class="search-results"
        hidden={!expanded}
      >
        {failed && <p class="search-note">The search failed; try again.</p>}
        {!failed && results?.length === 0 && <p class="search-note">Nothing found.</p>}
        {groups.map((g) => (
          <div key={g.kind} role="group" aria-label={g.label}>
            <div class="search-group" aria-hidden="true">
              {g.label}
            </div>
            {g.items.map((r) => {
              const i = shown.indexOf(r);
              return (
                <div
                  key={r.id}
                  id={optionId(i)}
                  role="option"
                  tabIndex={-1}
                  aria-selected={i === active ? 'true' : 'false'}
                  class={i === active ? 'search-option active' : 'search-option'}
                  onMouseDown={(e) => {
                    e.preventDefault();
                    choose(r);
                  }}
                  onMouseMove={() => setActive(i)}
                >
                  <span class="search-name">{r.name}</span>
                  <span class="search-match">
                    {labels[r.match.field] ?? FIELD_LABELS[r.match.field] ?? r.match.field}: {r.match.value}
                  </span>
                </div>
              );
            })}
          </div>
        ))}
      </div>
    </div>
  );
}
