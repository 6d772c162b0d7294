import { useState } from 'preact/hooks';
import { api, ApiError, ok, type ApiKey, type ApiKeyInput, type NewApiKey, type Project } from '../../api';
import { to } from '../../links';
import { SecretOnce } from '../../secret-once';
import { Alert, ConfirmButton, Field, Loaded, message, Page, useLoad, useSubmit, type Explained } from '../../ui';

type Scope = NonNullable<ApiKeyInput['scopes']>[number];
const SCOPES: [Scope, string, string][] = [
  ['read', 'Read', 'GET only'],
  ['write', 'Write', 'also create, change, import'],
];
/** The API takes at most this many projects per key. */
const MAX_PROJECTS = 20;
const day = (iso: string) => new Date(iso).toLocaleDateString();

/**
 * `/account/api-keys`: the account's API keys, the credential of CI jobs and scripts (exchanged at
 * `POST /auth/api-key/token` for a short-lived token). The list, a form whose new key's value is shown
 * once, and revocation.
 */
export function ApiKeys() {
  const keys = useLoad((signal) => ok(api.GET('/me/api-keys', { signal })), []);
  const projects = useLoad((signal) => ok(api.GET('/projects', { signal })), []);
  const limits = useLoad((signal) => ok(api.GET('/me/limits/status', { signal })), []);
  const [created, setCreated] = useState<NewApiKey>();
  const [error, setError] = useState('');
  const changed = () => {
    keys.reload();
    limits.reload();
  };
  const revoke = (key: ApiKey) => async () => {
    setError('');
    try {
      await ok(api.DELETE('/me/api-keys/{key_id}', { params: { path: { key_id: key.id } } }));
      if (created?.id === key.id) setCreated(undefined);
      changed();
    } catch (err) {
      setError(message(err));
    }
  };
  const max = limits.data?.limits.api_keys;
  return (
    <Page title="API keys">
      <p>
        An API key lets a CI job or a script use the catalog without your password: it is exchanged for a token that
        lasts 15 minutes.
        {max != null && (
          <>
            {' '}
            Your plan allows {max} API key{max === 1 ? '' : 's'}; {limits.data!.usage.api_keys} in use (metrics keys
            count too).
          </>
        )}
        {max != null && limits.data!.usage.api_keys >= max && (
          <>
            {' '}
            To create another, revoke one or choose a bigger plan on <a href={to.billing}>Plan & billing</a>.
          </>
        )}
      </p>
      <Alert>{error}</Alert>
      {created && <CreatedKey apiKey={created} onDismiss={() => setCreated(undefined)} />}
      <Loaded state={keys} label="API keys">
        {(list) =>
          list.length ? (
            <ul class="cards api-keys">
              {list.map((k) => (
                <li key={k.id}>
                  <KeySummary apiKey={k} projects={projects.data} />
                  <ConfirmButton
                    label="Revoke"
                    subject={`API key ${k.name}`}
                    confirm={`Revoke API key ${k.name}? Whatever uses it stops working at once.`}
                    onConfirm={revoke(k)}
                  />
                </li>
              ))}
            </ul>
          ) : (
            <p>No API key yet.</p>
          )
        }
      </Loaded>
      <NewKeyForm
        projects={projects.data ?? []}
        onCreated={(k) => {
          setCreated(k);
          changed();
        }}
      />
    </Page>
  );
}

/** Which projects a key reaches, by name; an id no longer among the caller's projects is said so. */
function projectNames(ids: string[] | null, projects: Project[] | undefined): string {
  if (!ids) return 'all projects';
  if (!projects) return `${ids.length} project${ids.length === 1 ? '' : 's'}`;
  return ids.map((id) => projects.find((p) => p.id === id)?.name ?? 'a project you no longer reach').join(', ');
}

function KeySummary(props: { apiKey: ApiKey; projects: Project[] | undefined }) {
  const k = props.apiKey;
  const expired = k.expires_at !== null && Date.parse(k.expires_at) <= Date.now();
  return (
    <dl class="key-summary">
      <div class="key-name">
        <dt class="sr-only">Name</dt>
        <dd>
          <strong>{k.name}</strong> <code>{k.prefix}…</code>
          {expired && <span class="badge expired">expired</span>}
        </dd>
      </div>
      <div>
        <dt>Scopes</dt>
        <dd>{k.scopes.join(', ')}</dd>
      </div>
      <div>
        <dt>Projects</dt>
        <dd>{projectNames(k.project_ids, props.projects)}</dd>
      </div>
      <div>
        <dt>Created</dt>
        <dd>{day(k.created_at)}</dd>
      </div>
      <div>
        <dt>Expires</dt>
        <dd>{k.expires_at ? day(k.expires_at) : 'never'}</dd>
      </div>
      <div>
        <dt>Last used</dt>
        <dd>{k.last_used_at ? new Date(k.last_used_at).toLocaleString() : 'never'}</dd>
      </div>
    </dl>
  );
}

/** The value of a key just created, the only time it is shown, and how a CI job uses it. */
function CreatedKey(props: { apiKey: NewApiKey; onDismiss: () => void }) {
  return (
    <SecretOnce
      id="new-api-key"
      title={`API key ${props.apiKey.name} created`}
      label="The key's value"
      value={props.apiKey.key}
      dismiss="I have copied it"
      onDismiss={props.onDismiss}
    >
      <p>
        <strong>Copy it now: you will not see it again.</strong> The service keeps only a hash of it; if it is lost,
        revoke it and create another.
      </p>
      <p>
        In CI, store it as the secret <code>INFRACAT_API_KEY</code> and set <code>INFRACAT_URL</code> to{' '}
        <code>{location.origin}</code>: the <code>infracat</code> CLI (<code>npm install -g @infracat/client</code>)
        then signs in with it. A complete GitHub Actions workflow (plan on pull requests, apply on merge) is in{' '}
        <code>docs/cli.md</code>, section “A CI workflow”.
      </p>
    </SecretOnce>
  );
}

/** A refusal of creation as the page explains it: the plan's refusals (its features, its limit) say where to upgrade. */
function explainCreateRefusal(err: unknown): Explained {
  if (!(err instanceof ApiError) || err.status !== 403)
    return {
      fields: err instanceof ApiError ? err.fields : {},
      error: message(err, ['name', 'scopes', 'project_ids', 'expires_at']),
    };
  const billing = <a href={to.billing}>Plan & billing</a>;
  const atLimit = err.detail.startsWith('API key limit reached');
  return {
    error: err.detail,
    remedy: atLimit ? (
      <>Revoke a key you no longer use (above), or choose a plan with more API keys on {billing}.</>
    ) : (
      <>Choose a plan that includes API keys on {billing}.</>
    ),
  };
}

function NewKeyForm(props: { projects: Project[]; onCreated: (key: NewApiKey) => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['read']);
  const [projectIds, setProjectIds] = useState<string[]>([]);
  const [expires, setExpires] = useState('');
  const { submit, busy, error, remedy, fields } = useSubmit(
    async () => {
      const body = {
        name: name.trim(),
        scopes,
        project_ids: projectIds.length ? projectIds : null,
        // The end of the chosen day where the person is.
        expires_at: expires ? new Date(`${expires}T23:59:59`).toISOString() : null,
      };
      const key = await ok(api.POST('/me/api-keys', { body }));
      setName('');
      setProjectIds([]);
      setExpires('');
      props.onCreated(key);
    },
    ['name', 'scopes', 'project_ids', 'expires_at'],
    explainCreateRefusal,
  );
  const toggle = <T,>(list: T[], item: T, on: boolean) => (on ? [...list, item] : list.filter((x) => x !== item));
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  return (
    <form onSubmit={submit} aria-labelledby="new-key-title">
      <h2 id="new-key-title">New API key</h2>
      <Alert>
        {error && (
          <>
            {error} {remedy}
          </>
        )}
      </Alert>
      <div class="form-grid">
        <Field
          label="Key name"
          name="key-name"
          required
          maxLength={100}
          value={name}
          onValue={setName}
          error={fields.name}
          hint="What uses it, e.g. CI pipeline."
        />
        <div class={fields.expires_at ? 'field invalid' : 'field'}>
          <label for="f-key-expires">Expires on (optional)</label>
          <input
            id="f-key-expires"
            type="date"
            min={tomorrow}
            value={expires}
            onInput={(e) => setExpires(e.currentTarget.value)}
            aria-invalid={fields.expires_at ? true : undefined}
            aria-describedby={fields.expires_at ? 'f-key-expires-error' : 'f-key-expires-hint'}
          />
          <small id="f-key-expires-hint">Empty: it never expires.</small>
          {fields.expires_at && (
            <p class="error" id="f-key-expires-error">
              {fields.expires_at}
            </p>
          )}
        </div>
        <fieldset class={fields.scopes ? 'field invalid' : 'field'}>
          <legend>Scopes</legend>
          {SCOPES.map(([scope, label, what]) => (
            <label key={scope} class="check">
              <input
                type="checkbox"
                checked={scopes.includes(scope)}
                onChange={(e) => setScopes(toggle(scopes, scope, e.currentTarget.checked))}
              />{' '}
              {label} <small class="muted">{what}</small>
            </label>
          ))}
          {fields.scopes && <p class="error">{fields.scopes}</p>}
        </fieldset>
        <fieldset class={fields.project_ids ? 'field invalid wide' : 'field wide'}>
          <legend>Projects (optional)</legend>
          <small class="muted">
            None checked: every project of yours, also those added later. Up to {MAX_PROJECTS}.
          </small>
          {props.projects.map((p) => (
            <label key={p.id} class="check">
              <input
                type="checkbox"
                checked={projectIds.includes(p.id)}
                disabled={!projectIds.includes(p.id) && projectIds.length >= MAX_PROJECTS}
                onChange={(e) => setProjectIds(toggle(projectIds, p.id, e.currentTarget.checked))}
              />{' '}
              {p.name}
            </label>
          ))}
          {fields.project_ids && <p class="error">{fields.project_ids}</p>}
        </fieldset>
      </div>
      <button type="submit" class="primary" disabled={busy}>
        Create API key
      </button>
    </form>
  );
}
