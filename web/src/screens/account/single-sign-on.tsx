import { useState } from 'preact/hooks';
import { api, ok } from '../../api';
import { to } from '../../links';
import { Alert, ConfirmButton, Field, Loaded, message, useLoad } from '../../ui';
import { ssoMessage } from '../sso-refusals';

/**
 * The account's single sign-on: the identities linked to it (each can be unlinked), and
 * linking one — the password again (and a code where an authenticator is enrolled), then the
 * organisation's identity provider, which brings the browser back signed in.
 */
export function SingleSignOn(props: { hasAuthenticator: boolean }) {
  const identities = useLoad((signal) => ok(api.GET('/auth/me/sso/identities', { signal })), []);
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const link = async (e: Event) => {
    e.preventDefault();
    setError('');
    setBusy(true);
    try {
      const { authorization_url } = await ok(
        api.POST('/auth/sso/link', {
          body: {
            current_password: password,
            ...(props.hasAuthenticator ? { totp_code: code.replace(/\s+/g, '') } : {}),
            return_to: `${location.origin}${to.signIn('/account')}`,
          },
        }),
      );
      location.assign(authorization_url);
    } catch (err) {
      setError(ssoMessage(err));
      setBusy(false);
    }
  };
  const unlink = (id: string) => async () => {
    setError('');
    try {
      await ok(api.DELETE('/auth/me/sso/identities/{identity_id}', { params: { path: { identity_id: id } } }));
      identities.reload();
    } catch (err) {
      setError(message(err));
    }
  };
  return (
    <>
      <Alert>{error}</Alert>
      <Loaded state={identities} label="linked identities">
        {(list) =>
          list.length ? (
            <ul class="cards sso-identities">
              {list.map((i) => (
                <li key={i.id}>
                  <span>
                    <strong>{i.email}</strong>
                    <br />
                    <span class="muted">
                      {i.issuer}, linked {new Date(i.linked_at).toLocaleString()}
                    </span>
                  </span>
                  <ConfirmButton
                    label="Unlink"
                    subject={`identity ${i.email} at ${i.issuer}`}
                    confirm={`Unlink ${i.email} at ${i.issuer}? Single sign-on through it will no longer sign in to this account.`}
                    onConfirm={unlink(i.id)}
                  />
                </li>
              ))}
            </ul>
          ) : (
            <p>No identity is linked: you sign in with your password.</p>
          )
        }
      </Loaded>
      <form class="narrow" onSubmit={link}>
        <p>Link your organisation's single sign-on to this account (its e-mail address must be this account's).</p>
        <Field
          label="Current password"
          name="sso_password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onValue={setPassword}
        />
        {props.hasAuthenticator && (
          <Field
            label="Authenticator or recovery code"
            name="sso_totp_code"
            autocomplete="one-time-code"
            required
            value={code}
            onValue={setCode}
          />
        )}
        <button type="submit" disabled={busy}>
          Link single sign-on
        </button>
      </form>
    </>
  );
}
