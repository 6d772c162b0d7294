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
import { Header } from './header';
import { startEarly } from './early';
import { Servers } from './screens/catalog/servers';
import { ServerDetail } from './screens/catalog/server-detail';
import { ServerForm } from './screens/catalog/server-form';
import { Networks } from './screens/catalog/networks';
import { NetworkDetail } from './screens/catalog/network-detail';
import { NetworkForm } from './screens/catalog/network-form';
import { AuditLog } from './screens/logs/audit-log';
import { SecurityLog } from './screens/logs/security-log';

import { ResetPassword } from './screens/account/reset-password';
import { ConfirmEmail } from './screens/account/confirm-email';
import { AccountScreen } from './screens/account/account';
import { Members } from './screens/people/members';
import { Roles } from './screens/people/roles';
import { CustomFields } from './screens/catalog/custom-fields';

/** The topology screen and its graph libraries load when it is opened, never before sign-in. */
const loadTopology = () => import('./screens/topology/topology');
const Topology = lazy(() => loadTopology().then((m) => m.Topology));
/** ops: import & export, webhooks, plan & billing (loaded when opened). */
const Transfer = lazy(() => import('./screens/ops/transfer').then((m) => m.Transfer));
const Webhooks = lazy(() => import('./screens/ops/webhooks').then((m) => m.Webhooks));
const SingleSignOnSettings = lazy(() => import('./screens/ops/sso').then((m) => m.SingleSignOnSettings));
const WebhookDetail = lazy(() => import('./screens/ops/webhook-detail').then((m) => m.WebhookDetail));
const Billing = lazy(() => import('./screens/ops/billing').then((m) => m.Billing));
const BillingReturn = lazy(() => import('./screens/ops/billing').then((m) => m.BillingReturn));
const Downgrade = lazy(() => import('./screens/ops/downgrade').then((m) => m.Downgrade));
const Archive = lazy(() => import('./screens/ops/downgrade').then((m) => m.Archive));
const Archived = lazy(() => import('./screens/ops/archived').then((m) => m.Archived));
const ApiKeys = lazy(() => import('./screens/account/api-keys').then((m) => m.ApiKeys));

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
const ServersScreen = signedInOnly(Servers);
const ServerScreen = signedInOnly(ServerDetail);
const ServerFormScreen = signedInOnly(ServerForm);
const NetworksScreen = signedInOnly(Networks);
const NetworkScreen = signedInOnly(NetworkDetail);
const NetworkFormScreen = signedInOnly(NetworkForm);
const AuditLogScreen = signedInOnly(AuditLog);
const SecurityLogScreen = signedInOnly(SecurityLog);

const TransferScreen = signedInOnly(Transfer);
const WebhooksScreen = signedInOnly(Webhooks);
const SsoScreen = signedInOnly(SingleSignOnSettings);
const WebhookScreen = signedInOnly(WebhookDetail);
const BillingScreen = signedInOnly(Billing);
const BillingReturnScreen = signedInOnly(BillingReturn);
const DowngradeScreen = signedInOnly(Downgrade);
const ArchiveScreen = signedInOnly(Archive);
const ArchivedScreen = signedInOnly(Archived);

const MembersScreen = signedInOnly(Members);
const RolesScreen = signedInOnly(Roles);
const CustomFieldsScreen = signedInOnly(CustomFields);
const AccountPage = signedInOnly(AccountScreen);
const ApiKeysScreen = signedInOnly(ApiKeys);

function Home() {
  const { me } = useSession();
  const { route } = useLocation();
  useEffect(() => route(me ? to.projects : to.signIn(), true), [me]);
  return null;
}

function NotFound() {
  return (
    <Page title="Not found">
      <p>
        There is no page at this address. <a href="/">Go to the start page</a>.
      </p>
    </Page>
  );
}

function Shell(props: { session: Session }) {
  const { route } = useLocation();
  useEffect(
    () =>
      whenSignedOut(
        () => void props.session.signOut().finally(() => route(to.signIn(location.pathname + location.search))),
      ),
    [],
  );
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
            <Route path="/p/:projectId/e/:envId/servers" component={ServersScreen} />
            <Route path="/p/:projectId/e/:envId/servers/new" component={ServerFormScreen} />
            <Route path="/p/:projectId/e/:envId/servers/:serverId" component={ServerScreen} />
            <Route path="/p/:projectId/e/:envId/servers/:serverId/edit" component={ServerFormScreen} />
            <Route path="/p/:projectId/e/:envId/networks" component={NetworksScreen} />
            <Route path="/p/:projectId/e/:envId/networks/new" component={NetworkFormScreen} />
            <Route path="/p/:projectId/e/:envId/networks/:networkId" component={NetworkScreen} />
            <Route path="/p/:projectId/e/:envId/networks/:networkId/edit" component={NetworkFormScreen} />
            <Route path="/p/:projectId/audit" component={AuditLogScreen} />
            <Route path="/account/security-log" component={SecurityLogScreen} />

            <Route path="/p/:projectId/e/:envId/transfer" component={TransferScreen} />
            <Route path="/p/:projectId/webhooks" component={WebhooksScreen} />
            <Route path="/p/:projectId/sso" component={SsoScreen} />
            <Route path="/p/:projectId/webhooks/:webhookId" component={WebhookScreen} />
            <Route path="/account/billing" component={BillingScreen} />
            <Route path="/account/billing/downgrade" component={DowngradeScreen} />
            <Route path="/account/billing/archive" component={ArchiveScreen} />
            <Route path="/account/billing/archived" component={ArchivedScreen} />
            {/* Where the payment provider's checkout and portal send the payer back (the service's APP_BASE_URL/billing…). */}
            <Route path="/billing" component={BillingReturnScreen} />
            <Route path="/billing/:outcome" component={BillingReturnScreen} />

            <Route path="/reset-password" component={ResetPassword} />
            <Route path="/confirm-email" component={ConfirmEmail} />
            <Route path="/p/:projectId/members" component={MembersScreen} />
            <Route path="/p/:projectId/roles" component={RolesScreen} />
            <Route path="/p/:projectId/custom-fields" component={CustomFieldsScreen} />
            <Route path="/account" component={AccountPage} />
            <Route path="/account/api-keys" component={ApiKeysScreen} />
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
      .then((resumed) => {
        if (!resumed) return undefined;
        // The opened screen's code and data, beside the account's read rather than after it.
        startEarly(location.pathname, loadTopology);
        return loadMe();
      })
      .catch(() => setMe(undefined))
      .finally(() => setReady(true));
  }, []);
  const session = useMemo<Session>(
    () => ({
      me,
      signedIn: loadMe,
      signOut: async () => {
        await signOut().catch(() => {});
        setMe(undefined);
      },
    }),
    [me],
  );
  if (!ready)
    return (
      <p class="muted boot" role="status">
        Loading…
      </p>
    );
  return (
    <LocationProvider>
      <Shell session={session} />
    </LocationProvider>
  );
}
