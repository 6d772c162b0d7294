import { useState } from 'preact/hooks';
import { api, ok, type Webhook } from '../../api';
import { to } from '../../links';
import { Alert, Loaded, Page, useLoad, useSubmit } from '../../ui';
import { SecretOnce } from '../../secret-once';
import { bodyOf, draftOf, explainWebhookRefusal, WebhookFields } from './webhook-fields';

/** The signing secret of a webhook just registered (or rotated): shown this once, never again. */
export function WebhookSecret(props: { secret: string; webhook: Webhook; projectId: string; onDismiss: () => void }) {
  return (
    <SecretOnce
      id="webhook-secret"
      title="Signing secret"
      label={`Secret of ${props.webhook.url}`}
      value={props.secret}
      dismiss="I have copied it"
      onDismiss={props.onDismiss}
      actions={
        <a class="button" href={to.webhook(props.projectId, props.webhook.id)}>
          Open the webhook
        </a>
      }
    >
      <p>
        Copy it now: it is shown only this once. Receivers check each delivery's <code>X-Service-Signature</code> with
        it.
      </p>
    </SecretOnce>
  );
}

/** A project's webhooks (`/p/:projectId/webhooks`): the list, and a form to register one. */
export function Webhooks(props: { projectId: string }) {
  const hooks = useLoad(
    (signal) =>
      ok(api.GET('/projects/{project_id}/webhooks', { params: { path: { project_id: props.projectId } }, signal })),
    [props.projectId],
  );
  const [draft, setDraft] = useState(draftOf());
  const [made, setMade] = useState<{ webhook: Webhook; secret: string }>();
  const { submit, busy, error, fields } = useSubmit(
    async () => {
      const { secret, ...webhook } = await ok(
        api.POST('/projects/{project_id}/webhooks', {
          params: { path: { project_id: props.projectId } },
          body: bodyOf(draft),
        }),
      );
      setMade({ webhook, secret });
      setDraft(draftOf());
      hooks.reload();
    },
    ['url', 'events', 'description'],
    explainWebhookRefusal,
  );

  return (
    <Page title="Webhooks">
      <p>
        Each event of this project is POSTed to the webhooks that subscribe to it, signed with the webhook's secret.
        Available on the Team plan and above.
      </p>
      {made && <WebhookSecret {...made} projectId={props.projectId} onDismiss={() => setMade(undefined)} />}
      <Loaded state={hooks} label="webhooks">
        {(list) =>
          list.length ? (
            <ul class="cards webhooks">
              {list.map((w) => (
                <li key={w.id}>
                  <span class="webhook-head">
                    <a href={to.webhook(props.projectId, w.id)}>{w.url}</a>
                    <span class={w.enabled ? 'badge on' : 'badge off'}>{w.enabled ? 'enabled' : 'disabled'}</span>
                  </span>
                  <span class="muted">
                    {w.events.join(', ')}
                    {w.description ? ` — ${w.description}` : ''}
                  </span>
                </li>
              ))}
            </ul>
          ) : (
            <p class="muted">No webhook yet.</p>
          )
        }
      </Loaded>
      <h2>Register a webhook</h2>
      <form class="webhook-form" onSubmit={submit} noValidate>
        <Alert>{error}</Alert>
        <WebhookFields draft={draft} onDraft={setDraft} fields={fields} />
        <button type="submit" class="primary" disabled={busy}>
          Register webhook
        </button>
      </form>
    </Page>
  );
}
