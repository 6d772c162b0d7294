import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok, type ArchiveSelection, type OverageCandidates, type Preflight } from '../../api';
import { to } from '../../links';
import { Alert, ConfirmButton, Loaded, message, Page, Select, useLoad } from '../../ui';
import { Usage } from './plan-usage';
import { priceOf, when } from './plans';
import { TableWrap } from '../../table-wrap';

function PreflightView(props: { preflight: Preflight; onConfirmed: (text: string) => void }) {
  const p = props.preflight;
  const [error, setError] = useState<string>();
  const overKinds = (Object.entries(p.over) as [string, number][]).filter(([, n]) => n > 0);
  const confirm = async () => {
    setError(undefined);
    try {
      const out = await ok(api.POST('/me/downgrade/confirm', { body: { to_plan_id: p.to_plan.id } }));
      props.onConfirmed(
        out.any_over && out.archive_window.until
          ? `You are on ${out.plan.name} now. What is still over its limits is archived on ${when(out.archive_window.until)} unless you archive or delete it first.`
          : `You are on ${out.plan.name} now.`,
      );
    } catch (err) {
      setError(message(err));
    }
  };
  return (
    <section aria-labelledby="preflight-title">
      <h2 id="preflight-title">
        From {p.from_plan.name} to {p.to_plan.name}
      </h2>
      {p.any_over ? (
        <p class="alert">
          Your account is over {p.to_plan.name}'s limits:{' '}
          {overKinds.map(([k, n]) => `${n} ${k.replace('_', ' ')}`).join(', ')}. After the downgrade you have{' '}
          {p.archive_window_days} days to archive or delete what is over; then the rest is archived for you.
        </p>
      ) : (
        <p class="ok">Everything you have fits {p.to_plan.name}'s limits.</p>
      )}
      <div class="usages">
        <Usage
          id="pf-services"
          label="Services (per project)"
          count={p.usage.services}
          limit={p.limits.services}
          over={p.over.services}
        />
        <Usage
          id="pf-project-users"
          label="Project users"
          count={p.usage.project_users}
          limit={p.limits.project_users}
          over={p.over.project_users}
        />
        <Usage
          id="pf-api-keys"
          label="API keys"
          count={p.usage.api_keys}
          limit={p.limits.api_keys}
          over={p.over.api_keys}
        />
      </div>
      {p.projects.length > 0 && (
        <TableWrap label="Per project">
          <table class="preflight">
            <caption>Per project (over the smaller plan in bold)</caption>
            <thead>
              <tr>
                <th scope="col">Project</th>
                <th scope="col">Services</th>
                <th scope="col">Environments</th>
                <th scope="col">Project users</th>
                <th scope="col">Environments over</th>
              </tr>
            </thead>
            <tbody>
              {p.projects.map((pr) => (
                <tr key={pr.project_id}>
                  <th scope="row">{pr.name}</th>
                  {[pr.services, pr.environments, pr.project_users].map((m, i) => (
                    <td key={i} class={m.over > 0 ? 'over' : undefined}>
                      {m.count} / {m.limit ?? '∞'}
                      {m.over > 0 && <strong> ({m.over} over)</strong>}
                    </td>
                  ))}
                  <td>
                    {pr.environments_over
                      .map((e) => `${e.name}: ${e.services.count} / ${e.services.limit ?? '∞'}`)
                      .join('; ') || '—'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <Alert>{error}</Alert>
      <div class="actions">
        <ConfirmButton
          label={`Downgrade to ${p.to_plan.name}`}
          confirm={`Move to ${p.to_plan.name} now?`}
          onConfirm={confirm}
        />
        <a class="button" href={to.billing}>
          Keep {p.from_plan.name}
        </a>
      </div>
    </section>
  );
}

/** The downgrade preflight (`/account/billing/downgrade?to=<plan>`): what exceeds the smaller plan, then confirm. */
export function Downgrade() {
  const { query, route } = useLocation();
  const target = query.to ?? '';
  const plans = useLoad((signal) => ok(api.GET('/plans', { signal })), []);
  const [done, setDone] = useState<string>();
  const preflight = useLoad(
    (signal) =>
      target
        ? ok(api.POST('/me/downgrade/preflight', { body: { to_plan_id: target }, signal }))
        : Promise.resolve(null),
    [target],
  );
  const options: [string, string][] = [
    ['', 'Choose a plan…'],
    ...(plans.data ?? [])
      .filter((p) => p.interval !== 'custom')
      .map((p): [string, string] => [p.id, `${p.name} · ${priceOf(p)}`]),
  ];
  return (
    <Page
      title="Downgrade"
      actions={
        <a class="button" href={to.billing}>
          Plan & billing
        </a>
      }
    >
      <p>See what would be over a smaller plan's limits before you move to it.</p>
      <form class="inline-form" onSubmit={(e) => e.preventDefault()}>
        <Select
          label="Downgrade to"
          name="to_plan"
          value={target}
          onValue={(v) => route(to.downgrade(v || undefined))}
          options={options}
        />
      </form>
      {done ? (
        <p class="ok" role="status">
          {done} <a href={to.archive}>Choose what to archive</a>
        </p>
      ) : (
        <Loaded state={preflight} label="the preflight">
          {(pf) => (pf ? <PreflightView preflight={pf} onConfirmed={setDone} /> : null)}
        </Loaded>
      )}
    </Page>
  );
}

type Kind = 'environments' | 'services' | 'project_users' | 'api_keys';
const KIND_LABELS: [Kind, string][] = [
  ['environments', 'Environments'],
  ['services', 'Services'],
  ['project_users', 'Project users'],
  ['api_keys', 'API keys'],
];

function ArchiveForm(props: { candidates: OverageCandidates; onArchived: (text: string) => void }) {
  const c = props.candidates;
  const [chosen, setChosen] = useState<Record<Kind, string[]>>({ ...c.suggested });
  const [error, setError] = useState<string>();
  const toggle = (kind: Kind, id: string, on: boolean) =>
    setChosen({ ...chosen, [kind]: on ? [...chosen[kind], id] : chosen[kind].filter((x) => x !== id) });
  const total = KIND_LABELS.reduce((n, [k]) => n + chosen[k].length, 0);
  const archive = async () => {
    setError(undefined);
    try {
      const body: ArchiveSelection = Object.fromEntries(
        KIND_LABELS.filter(([k]) => chosen[k].length).map(([k]) => [k, chosen[k]]),
      );
      const out = await ok(api.POST('/me/mark-archived', { body }));
      const counts = Object.entries(out.counts)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${n} ${k.replace('_', ' ')}`)
        .join(', ');
      props.onArchived(
        `Archived ${counts || 'nothing'}.${out.refused.length ? ` Not archived: ${out.refused.map((r) => r.detail).join('; ')}` : ''}`,
      );
    } catch (err) {
      setError(message(err));
    }
  };
  const any = KIND_LABELS.some(([k]) => c[k].length);
  if (!any) return <p class="ok">Nothing is over your plan's limits: there is nothing to archive.</p>;
  return (
    <form onSubmit={(e) => e.preventDefault()}>
      <p>
        Archived resources leave the lists and free their plan slots; nothing is deleted, and they can be restored
        within the plan's limits. The suggested selection is checked.
      </p>
      {KIND_LABELS.filter(([k]) => c[k].length).map(([kind, label]) => (
        <fieldset key={kind} class="archive-kind">
          <legend>{label}</legend>
          {c[kind].map((item) => (
            <label key={item.id} class="check">
              <input
                type="checkbox"
                checked={chosen[kind].includes(item.id)}
                onChange={(e) => toggle(kind, item.id, e.currentTarget.checked)}
              />
              {item.name}{' '}
              <span class="muted">
                created {when(item.created_at)}
                {item.suggested ? ' · suggested' : ''}
              </span>
            </label>
          ))}
        </fieldset>
      ))}
      <Alert>{error}</Alert>
      <div class="actions">
        {total > 0 ? (
          <ConfirmButton
            label={`Archive ${total} selected`}
            confirm={`Archive ${total} resource${total === 1 ? '' : 's'}?`}
            onConfirm={archive}
          />
        ) : (
          <span class="muted">Nothing selected.</span>
        )}
      </div>
    </form>
  );
}

/** The archive flow (`/account/billing/archive`): choose what to archive to get under the plan's limits. */
export function Archive() {
  const [round, setRound] = useState(0);
  const [done, setDone] = useState<string>();
  const candidates = useLoad((signal) => ok(api.GET('/me/limits/overage-candidates', { signal })), [round]);
  const archived = useLoad((signal) => ok(api.GET('/me/archived/summary', { signal })), [round]);
  return (
    <Page
      title="Archive"
      heading="Choose what to archive"
      actions={
        <a class="button" href={to.billing}>
          Plan & billing
        </a>
      }
    >
      {done && (
        <p class="ok" role="status">
          {done}
        </p>
      )}
      <Loaded state={candidates} label="what could be archived">
        {(c) => (
          <ArchiveForm
            key={round}
            candidates={c}
            onArchived={(text) => {
              setDone(text);
              setRound((r) => r + 1);
            }}
          />
        )}
      </Loaded>
      <h2>Archived</h2>
      <Loaded state={archived} label="archived resources">
        {(counts) => {
          const listed = Object.entries(counts).filter(([, n]) => n > 0);
          return listed.length ? (
            <>
              <ul class="plain">
                {listed.map(([k, n]) => (
                  <li key={k}>
                    {n} {k.replace('_', ' ')}
                  </li>
                ))}
              </ul>
              <p>
                <a href={to.archived}>See and restore archived items</a>
              </p>
            </>
          ) : (
            <p class="muted">Nothing archived.</p>
          );
        }}
      </Loaded>
    </Page>
  );
}
