import { ApiError, type Webhook, type WebhookEvent, type WebhookInput } from '../../api';
import { Field, message, type Explained } from '../../ui';

/** The event types a webhook may subscribe to (SPEC's Events; checked against the generated types). */
export const EVENTS = [
  ['service.created', 'A service was created'],
  ['service.updated', 'A service was changed'],
  ['service.deleted', 'A service was deleted'],
  ['floor.created', 'A server was created'],
  ['alert.triggered', 'A monitoring alert was triggered'],
  ['alert.resolved', 'A monitoring alert was resolved'],
  ['user.invited', 'Someone was invited to the project'],
  ['subscription.changed', 'The subscription plan changed'],
] as const satisfies readonly [WebhookEvent, string][];

export interface WebhookDraft {
  url: string;
  events: WebhookEvent[];
  description: string;
}

export const draftOf = (w?: Webhook): WebhookDraft => ({
  url: w?.url ?? '',
  events: (w?.events as WebhookEvent[]) ?? ['service.created'],
  description: w?.description ?? '',
});
export const bodyOf = (d: WebhookDraft): WebhookInput => ({
  url: d.url.trim(),
  events: d.events,
  description: d.description.trim() || null,
});

/** The service refuses a URL it will not deliver to with a 400 sentence: it belongs next to the URL field. */
export function explainWebhookRefusal(err: unknown): Explained {
  if (err instanceof ApiError && err.status === 400 && /url/i.test(err.detail)) return { fields: { url: err.detail } };
  return { fields: err instanceof ApiError ? err.fields : {}, error: message(err, ['url', 'events', 'description']) };
}

/** URL, events (checkboxes) and description of a webhook, with the API's complaints next to them. */
export function WebhookFields(props: {
  draft: WebhookDraft;
  onDraft: (d: WebhookDraft) => void;
  fields: Record<string, string>;
}) {
  const { draft, onDraft, fields } = props;
  const toggle = (event: WebhookEvent, on: boolean) =>
    onDraft({ ...draft, events: on ? [...draft.events, event] : draft.events.filter((e) => e !== event) });
  return (
    <>
      <Field
        label="Payload URL"
        name="url"
        type="url"
        required
        value={draft.url}
        onValue={(url) => onDraft({ ...draft, url })}
        error={fields.url}
        hint="Where the service POSTs each event (https://…); it must be reachable from the internet."
      />
      <fieldset
        class={fields.events ? 'events invalid' : 'events'}
        aria-describedby={fields.events ? 'f-events-error' : undefined}
      >
        <legend>Events</legend>
        {EVENTS.map(([event, label]) => (
          <label key={event} class="check">
            <input
              type="checkbox"
              name="events"
              value={event}
              checked={draft.events.includes(event)}
              onChange={(e) => toggle(event, e.currentTarget.checked)}
            />
            <code>{event}</code> <span class="muted">{label}</span>
          </label>
        ))}
        {fields.events && (
          <p class="error" id="f-events-error">
            {fields.events}
          </p>
        )}
      </fieldset>
      <Field
        label="Description"
        name="description"
        maxLength={500}
        value={draft.description}
        onValue={(description) => onDraft({ ...draft, description })}
        error={fields.description}
      />
    </>
  );
}
