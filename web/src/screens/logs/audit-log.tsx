import { Fragment } from 'preact';
import { api, cursorPage, type AuditEntry } from '../../api';
import { to } from '../../links';
import { floorName } from '../catalog/names';
import { FilterForm, useUrlQuery, type FilterSpec } from '../../table';
import { Loaded, Page, useLoad } from '../../ui';
import { CursorPager, LOG_PAGE, When } from './paging';

/** The kinds of entity the log records, with the words shown for them. */
const ENTITY_TYPES: [string, string][] = [
  ['service', 'service'],
  ['floor', 'server'],
  ['network', 'network'],
  ['attachment', 'network attachment'],
  ['connection', 'connection'],
  ['chain', 'connection chain'],
  ['link', 'link'],
  ['project', 'project'],
  ['environment', 'environment'],
  ['group', 'group'],
  ['subgroup', 'subgroup'],
  ['env_role', 'environment role'],
  ['custom_role', 'custom role'],
  ['custom_role_assignment', 'custom role assignment'],
  ['custom_field', 'custom field'],
  ['project_user', 'project user'],
  ['invitation', 'invitation'],
  ['member', 'member'],
  ['import', 'import'],
  ['discovery_run', 'discovery run'],
  ['webhook', 'webhook'],
  ['cloud_account', 'cloud account'],
];
const VERBS: Record<string, string> = {
  create: 'created',
  update: 'changed',
  delete: 'deleted',
  archive: 'archived',
  restore: 'restored',
  accept: 'accepted',
  remove: 'removed',
  revoke: 'revoked',
  resend: 'resent',
  apply: 'applied',
  run: 'ran',
  disable: 'disabled',
  connect: 'checked',
};
const typeLabel = (t: string) => ENTITY_TYPES.find(([v]) => v === t)?.[1] ?? t.replaceAll('_', ' ');

type FilterKey = 'entity_type' | 'action' | 'actor_id' | 'entity_id' | 'since' | 'until';
const KEYS = ['entity_type', 'action', 'actor_id', 'entity_id', 'since', 'until', 'cursor'] as const;

/** The address keeps UTC (`since=2025-01-02T09:30:00.000Z`); the inputs show the reader's local time. */
const toLocalInput = (iso: string) => {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? ''
    : new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
/** A minute typed as `until` includes the whole minute (the API's bounds are inclusive, to the millisecond). */
const fromLocalInput = (local: string, endOfMinute: boolean) => {
  if (!local) return '';
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? '' : new Date(d.getTime() + (endOfMinute ? 59_999 : 0)).toISOString();
};

/** The project's audit log: who changed what and how, newest first, filtered and paged by cursor, all in the address. */
export function AuditLog(props: { projectId: string }) {
  const { applied, go, href, key } = useUrlQuery(KEYS);
  const { cursor, ...filters } = applied;
  const members = useLoad(
    (signal) =>
      api
        .GET('/projects/members/{project_id}', { params: { path: { project_id: props.projectId } }, signal })
        .then((r) => r.data ?? []),
    [props.projectId],
  );
  const envs = useLoad(
    (signal) =>
      api
        .GET('/environments', { params: { query: { project_id: props.projectId } }, signal })
        .then((r) => r.data ?? []),
    [props.projectId],
  );
  const log = useLoad(
    async (signal) => {
      const query = Object.fromEntries(Object.entries({ ...filters, cursor }).filter(([, v]) => v));
      const page = await cursorPage(
        api.GET('/projects/{project_id}/audit-log', {
          params: { path: { project_id: props.projectId }, query: { ...query, limit: LOG_PAGE } },
          signal,
        }),
      );
      return { ...page, names: await namesOf(page.items, signal) };
    },
    [props.projectId, key],
  );

  const FILTERS: FilterSpec<FilterKey>[] = [
    { key: 'entity_type', label: 'Kind', options: [['', 'Any'], ...ENTITY_TYPES] },
    { key: 'action', label: 'Action (e.g. floor.update)' },
    {
      key: 'actor_id',
      label: 'Who',
      options: [['', 'Anyone'], ...(members.data ?? []).map((m): [string, string] => [m.user_id, m.email])],
    },
    { key: 'entity_id', label: 'Item id' },
    { key: 'since', label: 'From', type: 'datetime-local' },
    { key: 'until', label: 'To', type: 'datetime-local' },
  ];
  const shown = { ...filters, since: toLocalInput(filters.since), until: toLocalInput(filters.until) };
  const envName = (id: string | null) => (id ? envs.data?.find((e) => e.id === id)?.name : undefined);

  return (
    <Page title="Audit log" wide>
      <p class="muted">Every change to this project, newest first: who made it, when, and what it changed.</p>
      <FilterForm
        label="Filter the audit log"
        filters={FILTERS}
        applied={shown}
        onApply={(f) =>
          go({ ...f, since: fromLocalInput(f.since, false), until: fromLocalInput(f.until, true), cursor: '' })
        }
      />
      <Loaded state={log} label="the audit log">
        {({ items, next, names }) => (
          <>
            <p class="muted" role="status" aria-live="polite">
              {items.length
                ? `${items.length} ${items.length === 1 ? 'entry' : 'entries'} on this page`
                : 'No entries match.'}
            </p>
            <ol class="log">
              {items.map((e) => (
                <Entry
                  key={e.id}
                  entry={e}
                  name={recordedName(e) ?? names.get(e.entity_id)}
                  envName={envName(e.environment_id)}
                  projectId={props.projectId}
                />
              ))}
            </ol>
            <CursorPager label="Pages of the audit log" cursor={cursor} next={next} href={(c) => href({ cursor: c })} />
          </>
        )}
      </Loaded>
    </Page>
  );
}

/** What an entry is about: the entity's name (or hostname) as the entry recorded it. */
function recordedName(e: AuditEntry): string | undefined {
  for (const side of [e.after, e.before]) {
    const name = side?.name ?? side?.hostname ?? side?.email;
    if (typeof name === 'string' && name) return name;
  }
  return undefined;
}

/** The current name of a service, server or network (an update records only what changed, often not the name); none once it is gone. A custom field's is its key, the entry's entity id. */
async function currentName(type: string, id: string, signal: AbortSignal): Promise<string | undefined> {
  if (type === 'custom_field') return id; // its key
  const answer =
    type === 'service'
      ? await api.GET('/services/{service_id}', { params: { path: { service_id: id } }, signal })
      : type === 'floor'
        ? await api.GET('/service-floors/{floor_id}', { params: { path: { floor_id: id } }, signal })
        : type === 'network'
          ? await api.GET('/networks/{network_id}', { params: { path: { network_id: id } }, signal })
          : undefined;
  const item = answer?.data;
  return item ? ('name' in item ? item.name : floorName(item)) : undefined;
}

/** Names for a page's entries that recorded none: one read per entity on the page. */
async function namesOf(entries: AuditEntry[], signal: AbortSignal): Promise<Map<string, string>> {
  const unnamed = new Map(entries.filter((e) => !recordedName(e)).map((e) => [e.entity_id, e.entity_type]));
  const found = await Promise.all(
    [...unnamed].map(async ([id, type]) => [id, await currentName(type, id, signal)] as const),
  );
  return new Map(found.filter((f): f is [string, string] => Boolean(f[1])));
}

/** Fields an entry's own line already says (which entity, where), left out of its table of changes. */
const IMPLIED = new Set(['id', 'project_id', 'environment_id', 'created_at']);

/** Where the entity can be opened (while it exists). */
function entityHref(e: AuditEntry, projectId: string): string | undefined {
  const env = e.environment_id;
  if (!env || e.action.endsWith('.delete')) return undefined;
  if (e.entity_type === 'service') return to.service(projectId, env, e.entity_id);
  if (e.entity_type === 'floor') return to.server(projectId, env, e.entity_id);
  if (e.entity_type === 'network') return to.network(projectId, env, e.entity_id);
  return undefined;
}

function Entry(props: { entry: AuditEntry; name?: string; envName?: string; projectId: string }) {
  const e = props.entry;
  const verb = e.action.split('.').pop() ?? e.action;
  const who = e.actor.type === 'service' ? 'The service' : (e.actor.email ?? 'An account');
  const name = props.name;
  const link = entityHref(e, props.projectId);
  return (
    <li>
      <article aria-label={`${who} ${VERBS[verb] ?? verb} ${typeLabel(e.entity_type)} ${name ?? ''}`.trim()}>
        <p class="log-head">
          <When at={e.at} /> <strong>{who}</strong>
          {e.actor.is_staff && <span class="badge">staff</span>} {VERBS[verb] ?? verb} {typeLabel(e.entity_type)}{' '}
          {name && (link ? <a href={link}>{name}</a> : <strong>{name}</strong>)}
          {props.envName && <span class="muted"> in {props.envName}</span>}
        </p>
        <Changes before={e.before} after={e.after} />
        {e.summary && Object.keys(e.summary).length > 0 && (
          <dl class="facts summary">
            {Object.entries(e.summary).map(([k, v]) => (
              <Fragment key={k}>
                <dt>{k.replaceAll('_', ' ')}</dt>
                <dd>{show(v)}</dd>
              </Fragment>
            ))}
          </dl>
        )}
        <p class="muted small">
          <code>{e.action}</code>
          {' · '}
          <a href={to.audit(props.projectId, { entity_id: e.entity_id })}>History of this {typeLabel(e.entity_type)}</a>
          {e.import_id && <> · by import {e.import_id.slice(0, 8)}</>}
          {e.source_ip && <> · from {e.source_ip}</>}
        </p>
      </article>
    </li>
  );
}

/** A value of an entry as text: lists joined, objects as JSON, none as a dash. */
function show(v: unknown): string {
  if (v === null || v === undefined || v === '') return '—';
  if (Array.isArray(v)) return v.length ? v.map(show).join(', ') : '(none)';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** The fields an entry changed: before and after, side by side (a creation has only after, a deletion only before). */
function Changes(props: { before: AuditEntry['before']; after: AuditEntry['after'] }) {
  const fields = [...new Set([...Object.keys(props.before ?? {}), ...Object.keys(props.after ?? {})])].filter(
    (f) => !IMPLIED.has(f),
  );
  if (!fields.length) return null;
  return (
    <table class="changes">
      <thead>
        <tr>
          <th scope="col">Field</th>
          {props.before && <th scope="col">Before</th>}
          {props.after && <th scope="col">After</th>}
        </tr>
      </thead>
      <tbody>
        {fields.map((f) => (
          <tr key={f}>
            <th scope="row">{f.replaceAll('_', ' ')}</th>
            {props.before && <td>{show(props.before[f])}</td>}
            {props.after && <td>{show(props.after[f])}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
