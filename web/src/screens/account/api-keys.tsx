import { useState } from 'preact/hooks';
import { api, ok, type ApiKey, type ApiKeyInput, type NewApiKey } from '../../api';
import { Alert, ConfirmButton, Field, Loaded, message, useLoad, useSubmit } from '../../ui';

type Scope = NonNullable<ApiKeyInput['scopes']>[number];
const SCOPES: [Scope, string][] = [['read', 'Read'], ['write', 'Write']];
const day = (iso: string | null, none: string) => (iso ? new Date(iso).toLocaleDateString() : none);

/** The account's API keys (/me/api-keys): a new key's value is shown once; the list; revocation. */
export function ApiKeys() {
  const keys = useLoad((signal) => ok(api.GET('/me/api-keys', { signal })), []);
  const [created, setCreated] = useState<NewApiKey>();
  const [error, setError] = useState('');
  const revoke = (key: ApiKey) => async () => {
    setError('');
    try {
      await ok(api.DELETE('/me/api-keys/{key_id}', { params: { path: { key_id: key.id } } }));
      if (created?.id === key.id) setCreated(undefined);
      keys.reload();
    } catch (err) {
      setError(message(err));
    }
  };
  return (
    <>
      <Alert>{error}</Alert>
      {created && <CreatedKey apiKey={created} onDismiss={() => setCreated(undefined)} />}
      <Loaded state={keys} label="API keys">
        {(list) =>
          list.length ? (
            <ul class="cards">
              {list.map((k) => (
                <li key={k.id}>
                  <span>
                    <strong>{k.name}</strong> <code>{k.prefix}…</code> <span class="muted">{k.scopes.join(', ')}</span>
                    <br /><span class="muted">created {day(k.created_at, '')}, expires {day(k.expires_at, 'never')}, last used {day(k.last_used_at, 'never')}</span>
                  </span>
                  <ConfirmButton label="Revoke" subject={`API key ${k.name}`} confirm={`Revoke API key ${k.name}? Whatever uses it stops working.`} onConfirm={revoke(k)} />
                </li>
              ))}
            </ul>
          ) : (
            <p>No API key yet.</p>
          )
        }
      </Loaded>
      <NewKeyForm onCreated={(k) => { setCreated(k); keys.reload(); }} />
    </>
  );
}

/** The value of a key just created: the only time it is shown. */
function CreatedKey(props: { apiKey: NewApiKey; onDismiss: () => void }) {
  const [copied, setCopied] = useState('');
  const copy = () => navigator.clipboard.writeText(props.apiKey.key).then(() => setCopied('Copied.'), () => setCopied('Copying was not allowed: select the value instead.'));
  return (
    <div class="ok once" role="region" aria-label="New API key">
      <p role="status">API key {props.apiKey.name} is created. Copy its value now: it is not shown again.</p>
      <p><code class="secret" id="new-api-key">{props.apiKey.key}</code></p>
      <div class="row-actions">
        <button type="button" onClick={copy}>Copy key</button>
        <button type="button" onClick={props.onDismiss}>Done</button>
        {copied && <span role="status">{copied}</span>}
      </div>
    </div>
  );
}

function NewKeyForm(props: { onCreated: (key: NewApiKey) => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['read']);
  const [expires, setExpires] = useState('');
  const { submit, busy, error, fields } = useSubmit(async () => {
    const key = await ok(api.POST('/me/api-keys', { body: { name: name.trim(), scopes, expires_at: expires ? new Date(`${expires}T23:59:59`).toISOString() : null } }));
    setName('');
    props.onCreated(key);
  }, ['name', 'scopes', 'expires_at']);
  return (
    <form onSubmit={submit}>
      <h3>New API key</h3>
      <Alert>{error}</Alert>
      <div class="form-grid">
        <Field label="Key name" name="key-name" required maxLength={100} value={name} onValue={setName} error={fields.name} hint="What uses it, e.g. CI pipeline." />
        <div class={fields.expires_at ? 'field invalid' : 'field'}>
          <label for="f-key-expires">Expires on (optional)</label>
          <input id="f-key-expires" type="date" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} aria-invalid={fields.expires_at ? true : undefined} aria-describedby={fields.expires_at ? 'f-key-expires-error' : undefined} />
          {fields.expires_at && <p class="error" id="f-key-expires-error">{fields.expires_at}</p>}
        </div>
        <fieldset class={fields.scopes ? 'field invalid' : 'field'}>
          <legend>Scopes</legend>
          {SCOPES.map(([scope, label]) => (
            <label key={scope} class="check">
              <input type="checkbox" checked={scopes.includes(scope)} onChange={(e) => setScopes(e.currentTarget.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))} /> {label}
            </label>
          ))}
          {fields.scopes && <p class="error">{fields.scopes}</p>}
        </fieldset>
      </div>
      <button type="submit" class="primary" disabled={busy}>Create API key</button>
    </form>
  );
}
