import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok, ApiError } from '../../api';
import { to } from '../../links';
import { Alert, Field, message, Page, useSubmit } from '../../ui';

/** SPEC: a reset link is valid for 60 minutes. */
const LINK_VALID_MINUTES = 60;

/**
 * `/reset-password`: without a token, asks for a reset link (SPEC's `POST /auth/password/reset`, whose
 * answer is the same whether or not the address has an account, so this screen says the same neutral
 * sentence every time); with the token of the mailed link (`/reset-password?token=…`, built by the
 * service), chooses the new password.
 */
export function ResetPassword() {
  const { query } = useLocation();
  return query.token ? <ChooseNewPassword token={query.token} /> : <AskForLink />;
}

function AskForLink() {
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [sent, setSent] = useState('');
  const { submit, busy, error, fields } = useSubmit(async () => {
    setSent('');
    await ok(
      api.POST('/auth/password/reset', {
        body: { email: email.trim(), ...(code.trim() ? { totp_code: code.replace(/\s+/g, '') } : {}) },
      }),
    );
    setSent(
      `If ${email.trim()} belongs to an account, a link to choose a new password is on its way; it works once, for ${LINK_VALID_MINUTES} minutes. ` +
        'If your account has an authenticator, the link is sent only when the code above was right. No mail after a few minutes? Check the spam folder, then ask again.',
    );
  }, ['email', 'totp_code']);

  return (
    <Page title="Reset your password">
      <p>Enter the address of your account: we send it a link to choose a new password.</p>
      <form class="narrow" onSubmit={submit}>
        <Alert>{error}</Alert>
        <p role="status" class="ok" hidden={!sent}>
          {sent}
        </p>
        <Field
          label="Email"
          name="email"
          type="email"
          autocomplete="username"
          required
          value={email}
          onValue={setEmail}
          error={fields.email}
        />
        <Field
          label="Authenticator or recovery code, if your account has one"
          name="totp_code"
          autocomplete="one-time-code"
          value={code}
          onValue={setCode}
          error={fields.totp_code}
          hint="An account with an authenticator gets the link only with a valid code, so a stolen mailbox alone cannot reset it."
        />
        <button type="submit" class="primary" disabled={busy}>
          Send the link
        </button>
      </form>
      <p>
        <a href={to.signIn()}>Back to sign in</a>
      </p>
    </Page>
  );
}

/** The confirm route's refusals about the link itself (the other 400s are the password policy's). */
const LINK_REFUSAL = /^Reset token/;

function ChooseNewPassword(props: { token: string }) {
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const [deadLink, setDeadLink] = useState(false);
  const { submit, busy, error, fields } = useSubmit(
    async () => {
      await ok(api.POST('/auth/password/reset/confirm', { body: { token: props.token, new_password: password } }));
      setDone(true);
    },
    ['new_password'],
    (err) => {
      if (err instanceof ApiError && !err.issues.length) {
        if (LINK_REFUSAL.test(err.detail)) {
          setDeadLink(true);
          return { error: `${err.detail}: this link cannot be used any more. Ask for a new one below.` };
        }
        if (err.status === 400) return { fields: { new_password: err.detail } };
      }
      return { fields: err instanceof ApiError ? err.fields : {}, error: message(err, ['new_password']) };
    },
  );

  if (done) {
    return (
      <Page title="Password changed">
        <p role="status" class="ok">
          Your password is changed, and every session of your account has been signed out.
        </p>
        <p>
          <a class="button primary" href={to.signIn()}>
            Sign in with the new password
          </a>
        </p>
      </Page>
    );
  }
  return (
    <Page title="Choose a new password">
      <form class="narrow" onSubmit={submit}>
        <Alert>{error}</Alert>
        <Field
          label="New password"
          name="new_password"
          type="password"
          autocomplete="new-password"
          required
          minLength={8}
          value={password}
          onValue={setPassword}
          error={fields.new_password}
          hint="At least 8 characters. Every device signed in to your account will be signed out."
        />
        <button type="submit" class="primary" disabled={busy}>
          Set the new password
        </button>
      </form>
      {deadLink && (
        <p>
          <a href={to.resetPassword}>Ask for a new link</a>
        </p>
      )}
    </Page>
  );
}
