import { useEffect, useState } from 'preact/hooks';
import { api, ok, type Delivery, type DeliverySummary } from '../../api';
import { Alert, Loaded, message, Select, useAction, useLoad } from '../../ui';
import { when } from './plans';

/** A webhook's delivery log: its deliveries, each one's attempts, and redelivery. */

/** The webhook in view, and its path parameters in the API. */
export type Ids = { projectId: string; webhookId: string };
export const pathOf = (p: Ids) => ({ project_id: p.projectId, webhook_id: p.webhookId });

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
export function Deliveries(props: Ids & { round: number }) {
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
