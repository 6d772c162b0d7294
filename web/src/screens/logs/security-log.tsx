import { Fragment } from 'preact';
import { api, cursorPage, type SecurityEntry } from '../../api';
import { useUrlQuery } from '../../table';
import { Loaded, Page, useLoad } from '../../ui';
import { CursorPager, LOG_PAGE, When } from './paging';

/** Each event of the security log in words. */
const EVENTS: Record<SecurityEntry['event'], string> = {
  'account.created': 'Account created',
  'sign_in.succeeded': 'Signed in',
  'sign_in.refused': 'Sign-in refused',
  'lockout.started': 'Sign-in locked after repeated failures',
  'reauth.refused': 'Confirmation of identity refused',
  'authenticator.added': 'Authenticator added',
  'authenticator.removed': 'Authenticator removed',
  'recovery_codes.regenerated': 'New recovery codes made',
  'password_reset.requested': 'Password reset requested',
  'password_reset.completed': 'Password reset',
  'email_change.requested': 'E-mail change requested',
  'email.changed': 'E-mail address changed',
  'session.signed_out': 'Signed out',
  'session.revoked': 'Session ended',
  'sessions.revoked': 'Every other session ended',
  'account.updated_by_staff': 'Account changed by staff',
  'api_key.exchanged': 'API key exchanged for an access token',
  'api_key.exchange_refused': 'API key refused',
  'sso.linked': 'Single sign-on linked',
};
const ACTORS: Record<SecurityEntry['actor'], string> = {
  self: 'you',
  staff: 'staff',
  anonymous: 'someone not signed in',
};
/** The reason codes of refusals in words. */
const REASONS: Record<string, string> = {
  invalid_credentials: 'wrong e-mail or password',
  totp_required: 'authenticator code needed',
  totp_invalid: 'wrong authenticator code',
  totp_setup_required: 'authenticator setup required',
  locked: 'sign-in locked',
  invalid_password: 'wrong password',
  sign_in_gate: 'an invitation to accept first',
  sso_account_exists: 'single sign-on into an existing account (link it first)',
  key_revoked: 'the key was revoked',
  key_archived: 'the key is archived',
  key_expired: 'the key has expired',
  metrics_key: 'a metrics key is not an API key',
  account_blocked: 'the account is blocked',
};

/** The signed-in account's security log: sign-ins, refusals, second factors, sessions, newest first, paged by cursor. */
export function SecurityLog() {
  const { applied, href, key } = useUrlQuery(['cursor'] as const);
  const log = useLoad(
    (signal) =>
      cursorPage(
        api.GET('/auth/me/security-log', {
          params: { query: { limit: LOG_PAGE, ...(applied.cursor ? { cursor: applied.cursor } : {}) } },
          signal,
        }),
      ),
    [key],
  );
  return (
    <Page title="Security log">
      <p class="muted">
        Sign-ins to your account, refused attempts and changes to how it is protected, newest first. If you see one you
        do not recognise, reset your password and end your other sessions.
      </p>
      <Loaded state={log} label="the security log">
        {({ items, next }) => (
          <>
            {!items.length && <p>Nothing recorded yet.</p>}
            <ol class="log">
              {items.map((e) => (
                <Entry key={e.id} entry={e} />
              ))}
            </ol>
            <CursorPager
              label="Pages of the security log"
              cursor={applied.cursor}
              next={next}
              href={(c) => href({ cursor: c })}
            />
          </>
        )}
      </Loaded>
    </Page>
  );
}

function Entry({ entry: e }: { entry: SecurityEntry }) {
  const details = Object.entries(e.details).filter(([, v]) => v !== null && v !== '');
  return (
    <li>
      <article aria-label={EVENTS[e.event] ?? e.event}>
        <p class="log-head">
          <When at={e.at} />{' '}
          <strong class={e.event.endsWith('refused') || e.event === 'lockout.started' ? 'bad' : undefined}>
            {EVENTS[e.event] ?? e.event}
          </strong>
          {e.reason && <> ({REASONS[e.reason] ?? e.reason.replaceAll('_', ' ')})</>}
          <span class="muted"> by {ACTORS[e.actor]}</span>
        </p>
        <dl class="facts summary">
          {e.source_ip && (
            <>
              <dt>From</dt>
              <dd>{e.source_ip}</dd>
            </>
          )}
          {e.user_agent && (
            <>
              <dt>Browser or app</dt>
              <dd>{e.user_agent}</dd>
            </>
          )}
          {details.map(([k, v]) => (
            <Fragment key={k}>
              <dt>{k.replaceAll('_', ' ')}</dt>
              <dd>{String(v)}</dd>
            </Fragment>
          ))}
        </dl>
      </article>
    </li>
  );
}
