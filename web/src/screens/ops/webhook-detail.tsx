import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok, type PingResult, type Webhook } from '../../api';
import { to } from '../../links';
import { Alert, ConfirmButton, Loaded, Page, useAction, useLoad, useSubmit } from '../../ui';
import { bodyOf, draftOf, explainWebhookRefusal, WebhookFields } from './webhook-fields';
import { WebhookSecret } from './webhooks';
import { when } from './plans';
import { Deliveries, type Ids, pathOf } from './webhook-deliveries';

/** A webhook's settings form: its address, events and description. */
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
