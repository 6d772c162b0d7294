import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok, type Delivery, type DeliverySummary, type PingResult, type Webhook } from '../../api';
import { to } from '../../links';
import { Alert, ConfirmButton, Loaded, message, Page, Select, useAction, useLoad, useSubmit } from '../../ui';
import { bodyOf, draftOf, explainWebhookRefusal, WebhookFields } from './webhook-fields';
import { WebhookSecret } from './webhooks';
import { when } from './plans';

type Ids = { projectId: string; webhookId: string };
const pathOf = (p: Ids) => ({ project_id: p.projectId, webhook_id: p.webhookId });

/** One delivery's attempts (loaded when opened) and a button to send it again. */
function DeliveryRow(props: Ids & { delivery: DeliverySummary; onChange: () => void }) {
  const d = props.delivery;
  const [open, setOpen] = useState(false);
  const [detail, setDetail] = useState<Delivery>();
  const { act, busy, error, setError } = useAction();
  const path = { ...pathOf(props), delivery_id: d.id };
  const load = async () =>
    setDetail(
      await ok(api.GET('/projects/{project_id}/webhooks/{webhook_id}/deliveries/{delivery_id}', { params: { path } })),
    );
  useEffect(() => {
    if (open) load().catch((err) => setError(message(err)));
  }, [open, d.updated_at]);
  const redeliver = () =>
    act(async () => {
      setDetail(
        await ok(
          api.POST('/projects/{project_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', {
            params: { path },
          }),
        ),
      );
      setOpen(true);
      props.onChange();
    });
  return (
    <li class="delivery">
      <div class="delivery-head">
        <code>{d.event_type}</code>
        <span class={`status status-${d.status}`}>{d.status}</span>
        <span class="muted">
          {when(d.created_at)} · {d.attempt_count} attempt{d.attempt_count === 1 ? '' : 's'}
          {d.last_status_code !== null ? ` · HTTP ${d.last_status_code}` : ''}
        </span>
        <span class="row-actions">
          <button
            type="button"
            aria-expanded={open}
            onClick={() => setOpen(!open)}
            aria-label={`${open ? 'Hide' : 'Show'} attempts of the ${d.event_type} delivery of ${when(d.created_at)}`}
          >
            {open ? 'Hide attempts' : 'Attempts'}
          </button>
          <button
            type="button"
            disabled={busy}
            onClick={redeliver}
            aria-label={`Redeliver the ${d.event_type} delivery of ${when(d.created_at)}`}
          >
            Redeliver
          </button>
        </span>
      </div>
      <Alert>{error}</Alert>
      {open && detail && (
        <ol class="attempts" aria-label={`Attempts of the ${d.event_type} delivery`}>
          {detail.attempts.map((a, i) => (
            <li key={i}>
              <strong>{a.status_code === null ? 'no answer' : `HTTP ${a.status_code}`}</strong> · {a.trigger} ·{' '}
              {when(a.at)} · {a.duration_ms} ms
              {a.response_body && <pre class="response">{a.response_body}</pre>}
            </li>
          ))}
          {!detail.attempts.length && (
            <li class="muted">
              Not attempted yet{detail.next_attempt_at ? `: due ${when(detail.next_attempt_at)}` : ''}.
            </li>
          )}
        </ol>
      )}
    </li>
  );
}

/** The delivery log, newest first, filtered by status. */
function Deliveries(props: Ids & { round: number }) {
  const [status, setStatus] = useState('');
  const [mine, setMine] = useState(0);
  const query = status ? { status: status as DeliverySummary['status'], limit: 50 } : { limit: 50 };
  const list = useLoad(
    (signal) =>
      ok(
        api.GET('/projects/{project_id}/webhooks/{webhook_id}/deliveries', {
          params: { path: pathOf(props), query },
          signal,
        }),
      ),
    [props.projectId, props.webhookId, status, props.round, mine],
  );
  return (
    <section aria-labelledby="deliveries-title">
      <div class="page-head">
        <h2 id="deliveries-title">Deliveries</h2>
        <div class="inline-form">
          <Select
            label="Status"
            name="delivery-status"
            value={status}
            onValue={setStatus}
            options={[
              ['', 'Any'],
              ['succeeded', 'Succeeded'],
              ['failed', 'Failed'],
              ['pending', 'Pending'],
            ]}
          />
          <button type="button" onClick={() => setMine((r) => r + 1)}>
            Refresh
          </button>
        </div>
      </div>
      <Loaded state={list} label="deliveries">
        {(items) =>
          items.length ? (
            <ul class="plain deliveries">
              {items.map((d) => (
                <DeliveryRow key={d.id} {...props} delivery={d} onChange={() => setMine((r) => r + 1)} />
              ))}
            </ul>
          ) : (
            <p class="muted">
              No delivery in the last 30 days{status ? ` with status ${status}` : ''}. Send a test event, or cause one
              of its events.
            </p>
          )
        }
      </Loaded>
    </section>
  );
}

function EditForm(props: Ids & { webhook: Webhook; onSaved: (w: Webhook) => void }) {
  const [draft, setDraft] = useState(draftOf(props.webhook));
  const [saved, setSaved] = useState(false);
  const { submit, busy, error, fields } = useSubmit(
    async () => {
      setSaved(false);
      props.onSaved(
        await ok(
          api.PATCH('/projects/{project_id}/webhooks/{webhook_id}', {
            params: { path: pathOf(props) },
            body: bodyOf(draft),
          }),
        ),
      );
      setSaved(true);
    },
    ['url', 'events', 'description'],
    explainWebhookRefusal,
  );
  return (
    <form class="webhook-form" onSubmit={submit} noValidate>
      <Alert>{error}</Alert>
      <WebhookFields
        draft={draft}
        onDraft={(d) => {
          setDraft(d);
          setSaved(false);
        }}
        fields={fields}
      />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          Save changes
        </button>
        {saved && (
          <span class="ok" role="status">
            Saved.
          </span>
        )}
      </div>
    </form>
  );
}

/** One webhook (`/p/:projectId/webhooks/:webhookId`): enable/disable, test, edit, rotate the secret, delete; its delivery log. */
export function WebhookDetail(props: Ids) {
  const { route } = useLocation();
  const hook = useLoad(
    (signal) =>
      ok(api.GET('/projects/{project_id}/webhooks/{webhook_id}', { params: { path: pathOf(props) }, signal })),
    [props.projectId, props.webhookId],
  );
  const [current, setCurrent] = useState<Webhook>();
  const [ping, setPing] = useState<PingResult>();
  const [secret, setSecret] = useState<string>();
  const { act, busy, error } = useAction();
  const [round, setRound] = useState(0);
  useEffect(() => setCurrent(hook.data), [hook.data]);
  const w = current;
  const toggle = () =>
    act(async () =>
      setCurrent(
        await ok(
          api.PATCH('/projects/{project_id}/webhooks/{webhook_id}', {
            params: { path: pathOf(props) },
            body: { enabled: !w!.enabled },
          }),
        ),
      ),
    );
  const test = () =>
    act(async () => {
      setPing(
        await ok(api.POST('/projects/{project_id}/webhooks/{webhook_id}/test', { params: { path: pathOf(props) } })),
      );
      setRound((r) => r + 1);
    });
  const rotate = () =>
    act(async () => {
      const { secret: s, ...rest } = await ok(
        api.POST('/projects/{project_id}/webhooks/{webhook_id}/rotate-secret', { params: { path: pathOf(props) } }),
      );
      setCurrent(rest);
      setSecret(s);
    });
  return (
    <Page
      title={w ? `Webhook ${w.url}` : 'Webhook'}
      heading={
        w ? (
          <>
            Webhook <span class="url">{w.url}</span>
          </>
        ) : (
          'Webhook'
        )
      }
      actions={
        <a class="button" href={to.webhooks(props.projectId)}>
          All webhooks
        </a>
      }
    >
      <Loaded state={{ ...hook, data: current }} label="the webhook">
        {(webhook) => (
          <>
            {secret && (
              <WebhookSecret
                secret={secret}
                webhook={webhook}
                projectId={props.projectId}
                onDismiss={() => setSecret(undefined)}
              />
            )}
            <p>
              <span class={webhook.enabled ? 'badge on' : 'badge off'}>{webhook.enabled ? 'enabled' : 'disabled'}</span>{' '}
              {webhook.disabled_reason && <span class="muted">{webhook.disabled_reason}</span>}
              {webhook.failing_since && <span class="muted"> Failing since {when(webhook.failing_since)}.</span>}
            </p>
            <div class="actions">
              <button type="button" class="primary" disabled={busy} onClick={test}>
                Send test event
              </button>
              <button type="button" disabled={busy} onClick={toggle}>
                {webhook.enabled ? 'Disable' : 'Enable'}
              </button>
              <ConfirmButton
                label="Rotate secret"
                confirm="Make a new signing secret? The old one keeps signing for 24 hours."
                onConfirm={rotate}
              />
              <ConfirmButton
                label="Delete"
                confirm={`Delete the webhook to ${webhook.url}?`}
                onConfirm={() =>
                  act(async () => {
                    await ok(
                      api.DELETE('/projects/{project_id}/webhooks/{webhook_id}', { params: { path: pathOf(props) } }),
                    );
                    route(to.webhooks(props.projectId));
                  })
                }
              />
            </div>
            <Alert>{error}</Alert>
            {ping && (
              <p class={ping.success ? 'ok' : 'alert'} role="status">
                Test event {ping.success ? 'delivered' : 'not delivered'}:{' '}
                {ping.status_code === null ? 'no answer' : `HTTP ${ping.status_code}`} in {ping.duration_ms} ms.
              </p>
            )}
            <Deliveries {...props} round={round} />
            <h2>Settings</h2>
            <EditForm {...props} webhook={webhook} onSaved={setCurrent} />
          </>
        )}
      </Loaded>
    </Page>
  );
}
