import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok, ApiError, signedIn } from '../api';
import { safeNext, to } from '../links';
import { useSession } from '../session';
import { Alert, Field, message, Page, useSubmit } from '../ui';

/** SPEC's login answers that ask for the second factor. */
const CODE_REQUIRED = 'TOTP code required';
const CODE_INVALID = 'TOTP code required or invalid';

/** Signs in with a password, then (when the API asks for it) an authenticator or recovery code. */
export function SignIn() {
  const { query, route } = useLocation();
  const session = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [askCode, setAskCode] = useState(false);

  const { submit, busy, error, fields, clear } = useSubmit(async () => {
    const tokens = await ok(api.POST('/auth/login', { body: { email, password, ...(askCode ? { totp_code: code.replace(/\s+/g, '') } : {}) } }));
    await signedIn(tokens);
    await session.signedIn();
    route(safeNext(query.next), true);
  }, ['email', 'password', 'totp_code'], (err) => {
    if (err instanceof ApiError && err.status === 401 && err.detail === CODE_REQUIRED && !askCode) {
      setAskCode(true);
      return {};
    }
    if (err instanceof ApiError && err.detail === CODE_INVALID) {
      return { fields: { totp_code: 'That code was not accepted. Enter the current code of your authenticator app, or an unused recovery code.' } };
    }
    if (err instanceof ApiError && err.status === 422) return { fields: err.fields, error: message(err, ['email', 'password', 'totp_code']) };
    return { error: message(err) };
  });

  return (
    <Page title="Sign in">
      <form class="narrow" onSubmit={submit} noValidate={askCode}>
        <Alert>{error}</Alert>
        <Field label="Email" name="email" type="email" autocomplete="username" required value={email} onValue={setEmail} error={fields.email} readOnly={askCode} />
        <Field label="Password" name="password" type="password" autocomplete="current-password" required value={password} onValue={setPassword} error={fields.password} readOnly={askCode} />
        {askCode && (
          <Field label="Authenticator or recovery code" name="totp_code" autocomplete="one-time-code" required autoFocus value={code} onValue={setCode} error={fields.totp_code}
            hint="Your account has a second factor: enter the six-digit code your authenticator app shows, or one of your recovery codes." />
        )}
        <button type="submit" class="primary" disabled={busy}>{askCode ? 'Verify' : 'Sign in'}</button>
        {askCode && <button type="button" class="link" onClick={() => { setAskCode(false); setCode(''); clear(); }}>Use another account</button>}
      </form>
      <p><a href={to.resetPassword}>Forgot your password?</a></p>
      <p>New here? <a href={to.register}>Create an account</a>.</p>
    </Page>
  );
}
