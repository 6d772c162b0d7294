import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok, ApiError, signedIn } from '../api';
import { to } from '../links';
import { useSession } from '../session';
import { Field, message, Page } from '../ui';

/** SPEC's sign-in refusal for an account invited before it ever signed in. */
const ACCEPT_FIRST = 'Please accept your invitation via the email link before logging in';
const CODE_REQUIRED = 'TOTP code required';

/** What to tell someone whose link no longer works. */
function problem(err: unknown): string {
  const text = message(err);
  if (err instanceof ApiError && /^Invitation (not found|expired)/.test(text)) {
    return `${text}: the link may have been replaced by a newer one or revoked. Ask whoever invited you to send the invitation again.`;
  }
  return text;
}

/**
 * Where the invitation mail's link lands (`/invitations/accept?token=…`): someone new chooses a password
 * and joins; someone with an account signs in (or already is) and accepts. The token stays in the address,
 * read by the script; it is never written into a page.
 */
export function AcceptInvitation() {
  const { query } = useLocation();
  const session = useSession();
  const token = query.token;
  const [status, setStatus] = useState<{ text: string; ok: boolean; projectId?: string }>(
    token
      ? { text: '', ok: true }
      : {
          text: 'This link has no invitation token. Open the link from the invitation e-mail exactly as it is.',
          ok: false,
        },
  );
  const [name, setName] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);

  const run = (action: () => Promise<void>) => async (e: Event) => {
    e.preventDefault();
    if (!token) return;
    setBusy(true);
    try {
      await action();
    } catch (err) {
      setStatus({ text: problem(err), ok: false });
    } finally {
      setBusy(false);
    }
  };
  const accepted = async (invite: { project_id: string }) => {
    await session.signedIn();
    setStatus({
      text: 'Invitation accepted: you are a member of the project and signed in.',
      ok: true,
      projectId: invite.project_id,
    });
  };

  const create = run(async () => {
    const answer = await ok(
      api.POST('/invites/accept/by-token', {
        body: { token: token!, password: newPassword, name: name.trim() || null },
      }),
    );
    if ('access_token' in answer && typeof answer.access_token === 'string')
      await signedIn({ access_token: answer.access_token });
    await accepted(answer);
  });
  const existing = run(async () => {
    try {
      await signedIn(
        await ok(
          api.POST('/auth/login', {
            body: { email, password, ...(code.trim() ? { totp_code: code.replace(/\s+/g, '') } : {}) },
          }),
        ),
      );
    } catch (err) {
      if (err instanceof ApiError && err.detail === ACCEPT_FIRST) {
        return setStatus({
          text: 'This account has never signed in: accept with the first form, choosing its password there.',
          ok: false,
        });
      }
      if (err instanceof ApiError && err.detail === CODE_REQUIRED) {
        return setStatus({
          text: 'This account has a second factor: enter your authenticator or recovery code too.',
          ok: false,
        });
      }
      throw err;
    }
    await accepted(await ok(api.POST('/invites/accept/by-token', { body: { token: token! } })));
  });
  const asMe = run(async () => accepted(await ok(api.POST('/invites/accept/by-token', { body: { token: token! } }))));

  const done = status.ok && status.projectId;
  return (
    <Page title="Accept your invitation" heading="Join a project">
      <p>You were invited to a project of Infrastructure Catalog.</p>
      <p id="out" role="status" class={status.ok ? 'ok' : 'alert'} hidden={!status.text}>
        {status.text}
        {done && (
          <>
            {' '}
            <a href={to.project(status.projectId!)}>Open the project</a>
          </>
        )}
      </p>
      {token &&
        !done &&
        (session.me ? (
          <form onSubmit={asMe}>
            <p>
              You are signed in as <strong>{session.me.email}</strong>; the invitation must be for this address.
            </p>
            <button type="submit" class="primary" disabled={busy}>
              Accept as {session.me.email}
            </button>
          </form>
        ) : (
          <div class="two-forms">
            <form id="create" onSubmit={create}>
              <fieldset>
                <legend>New here? Create your account</legend>
                <Field
                  label="Your name"
                  name="name"
                  autocomplete="name"
                  maxLength={200}
                  value={name}
                  onValue={setName}
                />
                <Field
                  label="Choose a password (at least 8 characters)"
                  name="new-password"
                  type="password"
                  autocomplete="new-password"
                  required
                  minLength={8}
                  value={newPassword}
                  onValue={setNewPassword}
                />
                <button type="submit" class="primary" disabled={busy}>
                  Accept and create my account
                </button>
              </fieldset>
            </form>
            <form id="existing" onSubmit={existing}>
              <fieldset>
                <legend>Already have an account? Sign in to accept</legend>
                <Field
                  label="E-mail address (the invited one)"
                  name="email"
                  type="email"
                  autocomplete="username"
                  required
                  value={email}
                  onValue={setEmail}
                />
                <Field
                  label="Password"
                  name="password"
                  type="password"
                  autocomplete="current-password"
                  required
                  value={password}
                  onValue={setPassword}
                />
                <Field
                  label="Authenticator or recovery code, if you use one"
                  name="totp_code"
                  autocomplete="one-time-code"
                  value={code}
                  onValue={setCode}
                />
                <button type="submit" class="primary" disabled={busy}>
                  Sign in and accept
                </button>
              </fieldset>
            </form>
          </div>
        ))}
    </Page>
  );
}
