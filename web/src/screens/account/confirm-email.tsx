import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok } from '../../api';
import { to } from '../../links';
import { useSession } from '../../session';
import { Alert, Page, useSubmit } from '../../ui';

/**
 * Where the e-mail change's link lands (`/confirm-email?token=…`, mailed to the new address). The change
 * is made by a button, not on opening: a mail scanner that follows links must not confirm it.
 */
export function ConfirmEmail() {
  const { query } = useLocation();
  const session = useSession();
  const [done, setDone] = useState(false);
  const { submit, busy, error } = useSubmit(async () => {
    await ok(api.POST('/auth/email/confirm', { body: { token: query.token ?? '' } }));
    setDone(true);
    if (session.me) await session.signedIn(); // the header shows the new address
  }, []);
  return (
    <Page title="Confirm your new e-mail address">
      {!query.token && (
        <Alert>This link has no token. Open the link from the confirmation e-mail exactly as it is.</Alert>
      )}
      {done ? (
        <p role="status" class="ok">
          Your account's e-mail address is changed: sign in with the new one from now on.{' '}
          <a href={session.me ? to.account : to.signIn()}>{session.me ? 'Back to your account' : 'Sign in'}</a>
        </p>
      ) : (
        query.token && (
          <form onSubmit={submit}>
            <Alert>{error}</Alert>
            <p>Confirm that this mailbox is the new address of your Infrastructure Catalog account.</p>
            <button type="submit" class="primary" disabled={busy}>
              Confirm the new address
            </button>
          </form>
        )
      )}
    </Page>
  );
}
