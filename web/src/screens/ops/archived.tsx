import { useState } from 'preact/hooks';
import { api, ok, type ArchiveSelection } from '../../api';
import { to } from '../../links';
import { Alert, Loaded, Page, useLoad, useSubmit } from '../../ui';
import { floorName } from '../catalog/names';
import { when } from './plans';

type Kind = keyof ArchiveSelection & string;
/** One archived item as the screen lists it. */
interface Item {
  id: string;
  name: string;
  project_id?: string;
  archived_at: string;
}

/** The kinds in the order a restore takes them (environments first: their services and servers need them), each with its list. */
const KINDS: { kind: Kind; label: string; one: string; list: (signal: AbortSignal) => Promise<Item[]> }[] = [
  {
    kind: 'environments',
    label: 'Environments',
    one: 'environment',
    list: (signal) => ok(api.GET('/me/archived/environments', { signal })),
  },
  {
    kind: 'services',
    label: 'Services',
    one: 'service',
    list: (signal) => ok(api.GET('/me/archived/services', { signal })),
  },
  {
    kind: 'service_floors',
    label: 'Servers',
    one: 'server',
    list: async (signal) =>
      (await ok(api.GET('/me/archived/service-floors', { signal }))).map((f) => ({ ...f, name: floorName(f) })),
  },
  {
    kind: 'project_users',
    label: 'Project users',
    one: 'project user',
    list: (signal) => ok(api.GET('/me/archived/project-users', { signal })),
  },
  {
    kind: 'api_keys',
    label: 'API keys',
    one: 'API key',
    list: (signal) => ok(api.GET('/me/archived/api-keys', { signal })),
  },
];
const labelOf = (kind: string, n: number) => {
  const one = KINDS.find((k) => k.kind === kind)?.one ?? kind;
  return `${n} ${one}${n === 1 ? '' : 's'}`;
};

/** What is archived, kind by kind (only the kinds that have some), with the project names to say where. */
async function loadArchived(signal: AbortSignal) {
  const [summary, projects] = await Promise.all([
    ok(api.GET('/me/archived/summary', { signal })),
    ok(api.GET('/projects', { signal })),
  ]);
  const present = KINDS.filter((k) => summary[k.kind] > 0);
  const lists = await Promise.all(present.map((k) => k.list(signal)));
  return {
    kinds: present.map((k, i) => ({ ...k, items: lists[i] })),
    projects: new Map(projects.map((p) => [p.id, p.name])),
  };
}

function RestoreForm(props: { data: Awaited<ReturnType<typeof loadArchived>>; onRestored: (text: string) => void }) {
  const [chosen, setChosen] = useState<string[]>([]);
  const toggle = (id: string, on: boolean) => setChosen(on ? [...chosen, id] : chosen.filter((x) => x !== id));
  const { submit, busy, error } = useSubmit(async () => {
    const body: ArchiveSelection = Object.fromEntries(
      props.data.kinds
        .map((k) => [k.kind, k.items.filter((i) => chosen.includes(i.id)).map((i) => i.id)])
        .filter(([, ids]) => ids.length),
    );
    const out = await ok(api.POST('/me/unarchive', { body }));
    const counts = Object.entries(out.counts)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => labelOf(k, n))
      .join(', ');
    props.onRestored(
      `Restored ${counts || 'nothing'}.${out.refused.length ? ` Not restored: ${out.refused.map((r) => r.detail).join('; ')}` : ''}`,
    );
  }, []);
  if (!props.data.kinds.length) return <p class="muted">Nothing is archived.</p>;
  return (
    <form onSubmit={submit}>
      {props.data.kinds.map(({ kind, label, items }) => (
        <fieldset key={kind} class="archive-kind restore-kind">
          <legend>{label}</legend>
          {items.map((item) => (
            <label key={item.id} class="check">
              <input
                type="checkbox"
                name={kind}
                value={item.id}
                checked={chosen.includes(item.id)}
                onChange={(e) => toggle(item.id, e.currentTarget.checked)}
              />
              {item.name}{' '}
              <span class="muted">
                {item.project_id ? `in ${props.data.projects.get(item.project_id) ?? 'a project'} · ` : ''}archived{' '}
                {when(item.archived_at)}
              </span>
            </label>
          ))}
        </fieldset>
      ))}
      <Alert>{error}</Alert>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy || !chosen.length}>
          {chosen.length ? `Restore ${chosen.length} selected` : 'Restore selected'}
        </button>
      </div>
    </form>
  );
}

/** `/account/billing/archived`: what is archived, by kind, and restoring it within the plan's limits. */
export function Archived() {
  const [round, setRound] = useState(0);
  const [done, setDone] = useState<string>();
  const archived = useLoad(loadArchived, [round]);
  return (
    <Page
      title="Archived items"
      actions={
        <>
          <a class="button" href={to.archive}>
            Archive
          </a>
          <a class="button" href={to.billing}>
            Plan & billing
          </a>
        </>
      }
    >
      <p>
        Archived items are hidden from every list and free their plan slots; nothing in them is deleted. Restoring one
        brings it back as it was, where it was, and takes its plan slot again in the same step: if the selection would
        go over your plan's limits, nothing of it is restored, and you are told which limit. Then archive or delete
        something else first, restore fewer, or <a href={to.billing}>choose a bigger plan</a>. A service or server of an
        archived environment comes back only with its environment: select both.
      </p>
      {done && (
        <p class="ok" role="status">
          {done}
        </p>
      )}
      <Loaded state={archived} label="archived items">
        {(data) => (
          <RestoreForm
            key={round}
            data={data}
            onRestored={(text) => {
              setDone(text);
              setRound((r) => r + 1);
            }}
          />
        )}
      </Loaded>
    </Page>
  );
}
