import type { ComponentType } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ErrorBoundary, lazy, LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { api, ok, resumeSession, signOut, whenSignedOut, type Account } from './api';
import { SessionContext, useSession, type Session } from './session';
import { to } from './links';
import { Page } from './ui';
import { SignIn } from './screens/sign-in';
import { Register } from './screens/register';
import { AcceptInvitation } from './screens/accept-invitation';
import { Projects, ProjectEnvironments } from './screens/projects';
import { Services } from './screens/services';
import { ServiceDetail } from './screens/service-detail';
import { ServiceForm } from './screens/service-form';
import { Switcher } from './switcher';
import { ResetPassword } from './screens/account/reset-password';
import { ConfirmEmail } from './screens/account/confirm-email';
import { AccountScreen } from './screens/account/account';
import { Members } from './screens/people/members';
import { Roles } from './screens/people/roles';

/** The topology screen and its graph libraries load when it is opened, never before sign-in. */
const Topology = lazy(() => import('./screens/topology/topology').then((m) => m.Topology));

/** A screen behind sign-in: a signed-out visitor is sent to sign in, then back to it. */
function signedInOnly<P extends object>(Screen: ComponentType<P>): ComponentType<P> {
  return (props: P) => {
    const { me } = useSession();
    const { url, route } = useLocation();
    useEffect(() => {
      if (!me) route(to.signIn(url), true);
    }, [me, url]);
    return me ? <Screen {...props} /> : null;
  };
}

const ProjectsScreen = signedInOnly(Projects);
const EnvironmentsScreen = signedInOnly(ProjectEnvironments);
const ServicesScreen = signedInOnly(Services);
const ServiceFormScreen = signedInOnly(ServiceForm);
const ServiceScreen = signedInOnly(ServiceDetail);
const TopologyScreen = signedInOnly(Topology);
const MembersScreen = signedInOnly(Members);
const RolesScreen = signedInOnly(Roles);
const AccountPage = signedInOnly(AccountScreen);

function Home() {
  const { me } = useSession();
  const { route } = useLocation();
  useEffect(() => route(me ? to.projects : to.signIn(), true), [me]);
  return null;
}

function NotFound() {
  return (
    <Page title="Not found">
      <p>There is no page at this address. <a href="/">Go to the start page</a>.</p>
    </Page>
  );
}

function Header() {
  const { me, signOut: out } = useSession();
  const { path, route } = useLocation();
  const scope = /^\/p\/([^/]+)(?:\/e\/([^/]+))?/.exec(path);
  return (
    <header class="top">
      <a class="skip" href="#main">Skip to content</a>
      <a class="brand" href={me ? to.projects : '/'}>Infrastructure Catalog</a>
      {me && scope && <Switcher projectId={scope[1]} envId={scope[2]} />}
      {me && scope?.[2] && (
        <nav aria-label="Environment">
          <a href={to.services(scope[1], scope[2])} aria-current={path.includes('/services') ? 'page' : undefined}>Services</a>
          <a href={to.topology(scope[1], scope[2])} aria-current={path.endsWith('/topology') ? 'page' : undefined}>Topology</a>
        </nav>
      )}
      {me && scope && (
        <nav aria-label="Project">
          <a href={to.members(scope[1])} aria-current={path === to.members(scope[1]) ? 'page' : undefined}>Members</a>
          <a href={to.roles(scope[1])} aria-current={path === to.roles(scope[1]) ? 'page' : undefined}>Roles</a>
        </nav>
      )}
      <div class="account">
        {me ? (
          <>
            <span class="who" title={me.email}>{me.name || me.email}</span>
            <a href={to.account} aria-current={path === to.account ? 'page' : undefined}>Account</a>
            <button type="button" onClick={() => { route(to.signIn()); void out(); }}>Sign out</button>
          </>
        ) : (
          <a href={to.signIn()}>Sign in</a>
        )}
      </div>
    </header>
  );
}

function Shell(props: { session: Session }) {
  const { route } = useLocation();
  useEffect(() => whenSignedOut(() => void props.session.signOut().finally(() => route(to.signIn(location.pathname + location.search)))), []);
  return (
    <SessionContext.Provider value={props.session}>
      <Header />
      <main id="main">
        <ErrorBoundary>
          <Router>
            <Route path="/" component={Home} />
            <Route path="/sign-in" component={SignIn} />
            <Route path="/register" component={Register} />
            <Route path="/invitations/accept" component={AcceptInvitation} />
            <Route path="/p" component={ProjectsScreen} />
            <Route path="/p/:projectId" component={EnvironmentsScreen} />
            <Route path="/p/:projectId/e/:envId/services" component={ServicesScreen} />
            <Route path="/p/:projectId/e/:envId/services/new" component={ServiceFormScreen} />
            <Route path="/p/:projectId/e/:envId/services/:serviceId" component={ServiceScreen} />
            <Route path="/p/:projectId/e/:envId/services/:serviceId/edit" component={ServiceFormScreen} />
            <Route path="/p/:projectId/e/:envId/topology" component={TopologyScreen} />
            <Route path="/reset-password" component={ResetPassword} />
            <Route path="/confirm-email" component={ConfirmEmail} />
            <Route path="/p/:projectId/members" component={MembersScreen} />
            <Route path="/p/:projectId/roles" component={RolesScreen} />
            <Route path="/account" component={AccountPage} />
            <Route default component={NotFound} />
          </Router>
        </ErrorBoundary>
      </main>
    </SessionContext.Provider>
  );
}

export function App() {
  const [me, setMe] = useState<Account | undefined>();
  const [ready, setReady] = useState(false);
  const loadMe = async () => setMe(await ok(api.GET('/auth/me')));
  useEffect(() => {
    resumeSession()
      .then((resumed) => (resumed ? loadMe() : undefined))
      .catch(() => setMe(undefined))
      .finally(() => setReady(true));
  }, []);
  const session = useMemo<Session>(() => ({
    me,
    signedIn: loadMe,
    signOut: async () => {
      await signOut().catch(() => {});
      setMe(undefined);
    },
  }), [me]);
  if (!ready) return <p class="muted boot" role="status">Loading…</p>;
  return (
    <LocationProvider>
      <Shell session={session} />
    </LocationProvider>
  );
}
