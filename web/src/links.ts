/**
 * The dashboard's addresses. None starts like an API path (`/projects`, `/services`, … are the API's),
 * so a deep link and an API call never meet; the local server and CloudFront answer every one of them
 * with index.html.
 */
export const to = {
  home: '/',
  signIn: (next?: string) => (next && next !== '/' ? `/sign-in?next=${encodeURIComponent(next)}` : '/sign-in'),
  register: '/register',
  projects: '/p',
  project: (p: string) => `/p/${p}`,
  services: (p: string, e: string) => `/p/${p}/e/${e}/services`,
  newService: (p: string, e: string) => `/p/${p}/e/${e}/services/new`,
  service: (p: string, e: string, s: string) => `/p/${p}/e/${e}/services/${s}`,
  editService: (p: string, e: string, s: string) => `/p/${p}/e/${e}/services/${s}/edit`,
  topology: (p: string, e: string, focus?: string) => `/p/${p}/e/${e}/topology${focus ? `?focus=${focus}` : ''}`,
  // catalog: servers, networks, the project's audit log and the account's security log
  servers: (p: string, e: string) => `/p/${p}/e/${e}/servers`,
  newServer: (p: string, e: string) => `/p/${p}/e/${e}/servers/new`,
  server: (p: string, e: string, s: string) => `/p/${p}/e/${e}/servers/${s}`,
  editServer: (p: string, e: string, s: string) => `/p/${p}/e/${e}/servers/${s}/edit`,
  networks: (p: string, e: string) => `/p/${p}/e/${e}/networks`,
  newNetwork: (p: string, e: string) => `/p/${p}/e/${e}/networks/new`,
  network: (p: string, e: string, n: string) => `/p/${p}/e/${e}/networks/${n}`,
  editNetwork: (p: string, e: string, n: string) => `/p/${p}/e/${e}/networks/${n}/edit`,
  /** The project's audit log, optionally filtered (e.g. one entity's history). */
  audit: (p: string, filters: Record<string, string> = {}) => {
    const query = new URLSearchParams(filters).toString();
    return `/p/${p}/audit${query ? `?${query}` : ''}`;
  },
  securityLog: '/account/security-log',

  // ops: import & export, webhooks, plan & billing
  transfer: (p: string, e: string, job?: string) => `/p/${p}/e/${e}/transfer${job ? `?job=${job}` : ''}`,
  webhooks: (p: string) => `/p/${p}/webhooks`,
  sso: (p: string) => `/p/${p}/sso`,
  webhook: (p: string, w: string) => `/p/${p}/webhooks/${w}`,
  billing: '/account/billing',
  downgrade: (planId?: string) => `/account/billing/downgrade${planId ? `?to=${planId}` : ''}`,
  archive: '/account/billing/archive',
  /** What is archived, and restoring it. */
  archived: '/account/billing/archived',

  // people: password reset, members and invitations, custom roles, the account
  resetPassword: '/reset-password',
  confirmEmail: '/confirm-email',
  members: (p: string) => `/p/${p}/members`,
  roles: (p: string) => `/p/${p}/roles`,
  customFields: (p: string) => `/p/${p}/custom-fields`,
  account: '/account',
  /** The account's API keys: the credential of CI jobs. */
  apiKeys: '/account/api-keys',
};

/** Only a path of this app may follow sign-in (no open redirect through `?next=`). */
export const safeNext = (next: string | undefined): string => (next && /^\/(?![/\\])/.test(next) ? next : to.projects);
