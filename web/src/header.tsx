import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { to } from './links';
import { useSession } from './session';
import { Switcher } from './switcher';
import { SearchBox } from './search-box';
import { LiveIndicator } from './live-indicator';

/**
 * The header: the brand, the project and environment choosers, the project's and environment's
 * screens and the account's. On narrow screens (CSS: up to 640 px) all but the brand fold behind a
 * Menu button, so the screen's content starts at the top; choosing a screen folds it again.
 */
export function Header() {
  const { me, signOut: out } = useSession();
  const { path, route } = useLocation();
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [path]);
  const scope = /^\/p\/([^/]+)(?:\/e\/([^/]+))?/.exec(path);
  return (
    <header class="top">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <a class="brand" href={me ? to.projects : '/'}>
        Infrastructure Catalog
      </a>
      {me && scope && <SearchBox projectId={scope[1]} />}
      {me && (
        <button
          type="button"
          class="menu-toggle"
          aria-expanded={open ? 'true' : 'false'}
          aria-controls="site-menu"
          onClick={() => setOpen(!open)}
        >
          Menu
        </button>
      )}
      <div id="site-menu" class={open ? 'menu open' : 'menu'}>
        {me && scope && <Switcher projectId={scope[1]} envId={scope[2]} />}
        {me && scope && (
          <nav aria-label="Project">
            <a href={to.members(scope[1])} aria-current={path === to.members(scope[1]) ? 'page' : undefined}>
              Members
            </a>
            <a href={to.roles(scope[1])} aria-current={path === to.roles(scope[1]) ? 'page' : undefined}>
              Roles
            </a>
            <a href={to.customFields(scope[1])} aria-current={path === to.customFields(scope[1]) ? 'page' : undefined}>
              Custom fields
            </a>
            <a href={to.audit(scope[1])} aria-current={path.endsWith('/audit') ? 'page' : undefined}>
              Audit log
            </a>
            <a href={to.webhooks(scope[1])} aria-current={path.includes('/webhooks') ? 'page' : undefined}>
              Webhooks
            </a>
            <a href={to.sso(scope[1])} aria-current={path.endsWith('/sso') ? 'page' : undefined}>
              Single sign-on
            </a>
          </nav>
        )}
        {me && scope?.[2] && (
          <nav aria-label="Environment">
            <a href={to.services(scope[1], scope[2])} aria-current={path.includes('/services') ? 'page' : undefined}>
              Services
            </a>
            <a href={to.topology(scope[1], scope[2])} aria-current={path.endsWith('/topology') ? 'page' : undefined}>
              Topology
            </a>
            <a href={to.servers(scope[1], scope[2])} aria-current={path.includes('/servers') ? 'page' : undefined}>
              Servers
            </a>
            <a href={to.networks(scope[1], scope[2])} aria-current={path.includes('/networks') ? 'page' : undefined}>
              Networks
            </a>
            <a href={to.transfer(scope[1], scope[2])} aria-current={path.endsWith('/transfer') ? 'page' : undefined}>
              Import & export
            </a>
            <LiveIndicator />
          </nav>
        )}
        <div class="account">
          {me ? (
            <>
              <span class="who" title={me.email}>
                {me.name || me.email}
              </span>
              <a href={to.account} aria-current={path === to.account ? 'page' : undefined}>
                Account
              </a>
              <a href={to.securityLog} aria-current={path === to.securityLog ? 'page' : undefined}>
                Security log
              </a>
              <a href={to.apiKeys} aria-current={path === to.apiKeys ? 'page' : undefined}>
                API keys
              </a>
              <a href={to.billing} aria-current={path.startsWith('/account/billing') ? 'page' : undefined}>
                Plan & billing
              </a>
              <button
                type="button"
                onClick={() => {
                  route(to.signIn());
                  void out();
                }}
              >
                Sign out
              </button>
            </>
          ) : (
            <a href={to.signIn()}>Sign in</a>
          )}
        </div>
      </div>
    </header>
  );
}
