import { useEffect, useState } from 'preact/hooks';
import { api, ok, ApiError } from '../../api';
import { TextArea, listOf } from '../../form-fields';
import { Alert, Field, Loaded, message, Page, Select, useLoad, useSubmit } from '../../ui';

const ROLES: [string, string][] = [
  ['', 'No role (member only)'],
  ['viewer', 'viewer'],
  ['manager', 'manager'],
  ['administrator', 'administrator'],
];

/**
 * A project's single sign-on (`/p/:projectId/sso`; the owner, Business plan and above): the
 * OpenID Connect connection (issuer, client id, a secret never shown again), the e-mail domains with
 * the TXT record each needs and a Verify button, whether SSO is required, and the role people created
 * at their first sign-in get.
 */
export function SingleSignOnSettings(props: { projectId: string }) {
  const path = { params: { path: { project_id: props.projectId } } };
  const connection = useLoad(
    async (signal) => {
      try {
        return await ok(api.GET('/projects/{project_id}/sso', { ...path, signal }));
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
    [props.projectId],
  );
  const envs = useLoad(
    (signal) => ok(api.GET('/environments', { params: { query: { project_id: props.projectId } }, signal })),
    [props.projectId],
  );
  const [issuer, setIssuer] = useState('');
  const [clientId, setClientId] = useState('');
  const [secret, setSecret] = useState('');
  const [domains, setDomains] = useState('');
  const [required, setRequired] = useState(false);
  const [envId, setEnvId] = useState('');
  const [role, setRole] = useState('');
  const [note, setNote] = useState('');
  const [verifyError, setVerifyError] = useState('');
  useEffect(() => {
    const c = connection.data;
    if (!c) return;
    setIssuer(c.issuer);
    setClientId(c.client_id);
    setDomains(c.domains.map((d) => d.domain).join('\n'));
    setRequired(c.required);
    setEnvId(c.jit_role?.environment_id ?? '');
    setRole(c.jit_role?.role ?? '');
  }, [connection.data]);
  const { submit, busy, error, fields } = useSubmit(async () => {
    setNote('');
    await ok(
      api.PUT('/projects/{project_id}/sso', {
        ...path,
        body: {
          issuer,
          client_id: clientId,
          ...(secret ? { client_secret: secret } : {}),
          domains: listOf(domains, /[\s,]+/),
          required,
          jit_role: role && envId ? { environment_id: envId, role: role as 'viewer' } : null,
        },
      }),
    );
    setSecret('');
    setNote('Saved.');
    connection.reload();
  }, ['issuer', 'client_id', 'client_secret', 'domains']);
  const verify = (domain: string) => async () => {
    setVerifyError('');
    try {
      await ok(
        api.POST('/projects/{project_id}/sso/domains/{domain}/verify', {
          params: { path: { project_id: props.projectId, domain } },
        }),
      );
      connection.reload();
    } catch (err) {
      // the record not found (422 naming it; no field here shows it): the way on is at the DNS host, and time
      const missing = err instanceof ApiError && err.status === 422 ? err.fields.domain : undefined;
      setVerifyError(
        missing
          ? `${missing}. Publish it at your DNS host, then press Verify again (a new record may take a few minutes to be seen).`
          : message(err),
      );
    }
  };
  return (
    <Page title="Single sign-on">
      <p>
        People of your organisation sign in through its OpenID Connect identity provider. Register this address as the
        redirect URI there: <code>{location.origin}/auth/sso/callback</code>, with the scopes{' '}
        <code>openid email profile</code>.
      </p>
      <Loaded state={connection} label="single sign-on">
        {(c) =>
          c?.domains.length ? (
            <>
              <h2>Domains</h2>
              <Alert>{verifyError}</Alert>
              <ul class="cards sso-domains">
                {c.domains.map((d) => (
                  <li key={d.domain}>
                    <span>
                      <strong>{d.domain}</strong>{' '}
                      <span class={d.verified ? 'badge on' : 'badge off'}>
                        {d.verified ? 'verified' : 'not verified'}
                      </span>
                      {!d.verified && (
                        <>
                          <br />
                          <span class="muted">
                            Add this TXT record at your DNS host, then press Verify (a new record may take a few minutes
                            to be seen).
                          </span>
                          <br />
                          Name <code>{d.txt_name}</code>
                          <br />
                          Value <code>{d.txt_value}</code>
                        </>
                      )}
                    </span>
                    {!d.verified && (
                      <button type="button" onClick={verify(d.domain)} aria-label={`Verify ${d.domain}`}>
                        Verify
                      </button>
                    )}
                  </li>
                ))}
              </ul>
            </>
          ) : null
        }
      </Loaded>
      <h2>Connection</h2>
      <form class="narrow" onSubmit={submit} noValidate>
        <Alert>{error}</Alert>
        {note && (
          <p role="status" class="ok">
            {note}
          </p>
        )}
        <Field
          label="Issuer"
          name="issuer"
          value={issuer}
          onValue={setIssuer}
          error={fields.issuer}
          required
          hint="For example https://your-org.okta.com"
        />
        <Field
          label="Client ID"
          name="client_id"
          value={clientId}
          onValue={setClientId}
          error={fields.client_id}
          required
        />
        <Field
          label="Client secret"
          name="client_secret"
          type="password"
          autocomplete="off"
          value={secret}
          onValue={setSecret}
          error={fields.client_secret}
          hint={connection.data ? 'Leave empty to keep the current secret (it is never shown).' : undefined}
        />
        <TextArea
          label="E-mail domains"
          name="domains"
          value={domains}
          onValue={setDomains}
          error={fields.domains}
          hint="One per line; each is verified by a DNS TXT record."
          rows={3}
        />
        <div class="field check-field">
          <label>
            <input
              type="checkbox"
              name="required"
              checked={required}
              onChange={(e) => setRequired(e.currentTarget.checked)}
            />{' '}
            Require single sign-on for every member but the owner
          </label>
        </div>
        <Loaded state={envs} label="environments">
          {(list) => (
            <>
              <Select
                label="Role of people created at their first sign-in"
                name="jit_role"
                value={role}
                onValue={setRole}
                options={ROLES}
              />
              {role && (
                <Select
                  label="In the environment"
                  name="jit_environment"
                  value={envId}
                  onValue={setEnvId}
                  options={[['', '—'], ...list.map((e): [string, string] => [e.id, e.name])]}
                />
              )}
            </>
          )}
        </Loaded>
        <button type="submit" class="primary" disabled={busy}>
          Save
        </button>
      </form>
    </Page>
  );
}
