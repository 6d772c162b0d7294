import type { ComponentChildren } from 'preact';
import { api, ok } from '../../api';
import { useSession } from '../../session';
import { Loaded, Page, useLoad } from '../../ui';
import { to } from '../../links';
import { Authenticators } from './authenticators';
import { EmailChange, Profile } from './profile';
import { RecoveryCodes } from './recovery-codes';
import { Sessions } from './sessions';
import { SingleSignOn } from './single-sign-on';

/** One part of the account page, with its own anchor (`/account#sessions` is a link to it). */
function Part(props: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section id={props.id} aria-labelledby={`${props.id}-title`} class="part">
      <h2 id={`${props.id}-title`}>{props.title}</h2>
      {props.children}
    </section>
  );
}

const PARTS: [string, string][] = [
  ['profile', 'Profile'],
  ['email', 'E-mail address'],
  ['authenticators', 'Authenticators'],
  ['recovery-codes', 'Recovery codes'],
  ['sessions', 'Sessions'],
  ['single-sign-on', 'Single sign-on'],
  ['api-keys', 'API keys'],
];

/** `/account`: the signed-in account's profile, second factors, sessions, and a link to its API keys. */
export function AccountScreen() {
  const { me } = useSession();
  const devices = useLoad((signal) => ok(api.GET('/auth/totp/devices', { signal })), []);
  const hasAuthenticator = (devices.data?.length ?? 0) > 0;
  if (!me) return null;
  const title = (id: string) => PARTS.find(([p]) => p === id)![1];
  return (
    <Page title="Your account">
      <nav aria-label="Account sections" class="toc">
        {PARTS.map(([id, label]) => (
          <a key={id} href={`#${id}`}>
            {label}
          </a>
        ))}
      </nav>
      <Part id="profile" title={title('profile')}>
        <Profile me={me} />
      </Part>
      <Part id="email" title={title('email')}>
        <EmailChange me={me} hasAuthenticator={hasAuthenticator} />
      </Part>
      <Part id="authenticators" title={title('authenticators')}>
        <Loaded state={devices} label="authenticators">
          {(list) => <Authenticators devices={list} onChange={devices.reload} />}
        </Loaded>
      </Part>
      <Part id="recovery-codes" title={title('recovery-codes')}>
        <RecoveryCodes hasAuthenticator={hasAuthenticator} />
      </Part>
      <Part id="sessions" title={title('sessions')}>
        <Sessions />
      </Part>
      <Part id="single-sign-on" title={title('single-sign-on')}>
        <SingleSignOn hasAuthenticator={hasAuthenticator} />
      </Part>
      <Part id="api-keys" title={title('api-keys')}>
        <p>
          Keys for CI jobs and scripts have their own page: <a href={to.apiKeys}>Manage API keys</a>.
        </p>
      </Part>
    </Page>
  );
}
