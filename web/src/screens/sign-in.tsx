import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok, ApiError, signedIn } from '../api';
import { safeNext, to } from '../links';
import { useSession } from '../session';
import { Alert, Field, message, Page, useSubmit } from '../ui';
import { openSsoStart, ssoMessage } from './sso-refusals';

/** SPEC's login answers that ask for the second factor. */
const CODE_REQUIRED = 'TOTP code required';
const CODE_INVALID = 'TOTP code required or invalid';

/**
 * Signs in with a password, then (when the API asks for it) an authenticator or recovery code; or
 * with single sign-on: the e-mail first, then the company's identity provider, which
 * sends the browser back here with a one-time `login_code` exchanged for the session.
 */
export function SignIn() {
  const { query, route } = useLocation();
  const session = useSession();
  const [sso, setSso] = useState(false);
  const [ssoError, setSsoError] = useState<string | undefined>();
  useEffect(() => {
    const loginCode = query.login_code;
    if (!loginCode) return;
    void (async () => {
      try {
        await signedIn(await ok(api.POST('/auth/sso/token', { body: { login_code: loginCode } })));
        await session.signedIn();
        route(safeNext(query.next), true);
      } catch (err) {
        setSsoError(ssoMessage(err));
      }
    })();
  }, [query.login_code]);
  const [ssoBusy, setSsoBusy] = useState(false);
  const startSso = async (e: Event) => {
    e.preventDefault();
    setSsoError(undefined);
    setSsoBusy(true);
    const back = `${location.origin}${to.signIn(query.next)}`;
    const refused = await openSsoStart(`/auth/sso/start?${new URLSearchParams({ email, return_to: back })}`).catch(
      (err: unknown) => message(err),
    );
    if (refused) {
      setSsoError(refused);
      setSsoBusy(false);
    }
  };
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [askCode, setAskCode] = useState(false);

  const { submit, busy, error, fields, clear } = useSubmit(
    async () => {
      const tokens = await ok(
        api.POST('/auth/login', {
          body: { email, password, ...(askCode ? { totp_code: code.replace(/\s+/g, '') } : {}) },
        }),
      );
      await signedIn(tokens);
      await session.signedIn();
      route(safeNext(query.next), true);
    },
    ['email', 'password', 'totp_code'],
    (err) => {
      if (err instanceof ApiError && err.status === 401 && err.detail === CODE_REQUIRED && !askCode) {
        setAskCode(true);
        return {};
      }
      if (err instanceof ApiError && err.detail === CODE_INVALID) {
        return {
          fields: {
            totp_code:
              'That code was not accepted. Enter the current code of your authenticator app, or an unused recovery code.',
          },
        };
      }
      if (err instanceof ApiError && err.status === 422)
        return { fields: err.fields, error: message(err, ['email', 'password', 'totp_code']) };
      return { error: message(err) };
    },
  );

  if (sso) {
    return (
      <Page title="Sign in with single sign-on">
        <form class="narrow" onSubmit={startSso}>
          <Alert>{ssoError}</Alert>
          <Field
            label="Work email"
            name="email"
            type="email"
            autocomplete="username"
            required
            autoFocus
            value={email}
            onValue={setEmail}
            hint="Your organisation's identity provider signs you in; you come back here afterwards."
          />
          <button type="submit" class="primary" disabled={ssoBusy}>
            Continue
          </button>
          <button type="button" class="link" onClick={() => setSso(false)}>
            Use a password instead
          </button>
        </form>
      </Page>
    );
  }

  return (
    <Page title="Sign in">
      <Alert>{ssoError}</Alert>
      <form class="narrow" onSubmit={submit} noValidate={askCode}>
        <Alert>{error}</Alert>
        <Field
          label="Email"
          name="email"
          type="email"
          autocomplete="username"
          required
          value={email}
          onValue={setEmail}
          error={fields.email}
          readOnly={askCode}
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onValue={setPassword}
          error={fields.password}
          readOnly={askCode}
        />
        {askCode && (
          <Field
            label="Authenticator or recovery code"
            name="totp_code"
            autocomplete="one-time-code"
            required
            autoFocus
            value={code}
            onValue={setCode}
            error={fields.totp_code}
            hint="Your account has a second factor: enter the six-digit code your authenticator app shows, or one of your recovery codes."
          />
        )}
        <button type="submit" class="primary" disabled={busy}>
          {askCode ? 'Verify' : 'Sign in'}
        </button>
        {askCode && (
          <button
            type="button"
            class="link"
            onClick={() => {
              setAskCode(false);
              setCode('');
              clear();
            }}
          >
            Use another account
          </button>
        )}
      </form>
      <p>
        <button type="button" class="link" onClick={() => setSso(true)}>
          Use single sign-on
        </button>
      </p>
      <p>
        <a href={to.resetPassword}>Forgot your password?</a>
      </p>
      <p>
        New here? <a href={to.register}>Create an account</a>.
      </p>
    </Page>
  );
}
