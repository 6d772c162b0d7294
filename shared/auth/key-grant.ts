import type { KeyGrant } from '#shared/actor';

/**
 * What a token exchanged for an API key may reach, decided once: the pipeline asks
 * `keyGrantRefusal` of every authenticated route, and `keyBodyRefusal` once its body is validated;
 * the project limit is `keyAllowsProject`, asked where a project's access is loaded. See
 * docs/decisions/0139-api-keys-as-a-ci-credential-the-exchange-one-refusal-lookup.md and 0147-a-read-key-may-plan.md.
 */

export const KEY_TOKEN_ACCOUNT_ONLY = 'An API key cannot be used for this: sign in as the account holder';
export const KEY_LIMITED_TO_PROJECTS = 'This API key is limited to its projects: it cannot create one';
export const KEY_TOKEN_READ_ONLY = "This API key is read-only: writes need the 'write' scope";

/** Methods that change nothing: what a `read` key may send. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Routes only the account holder may use, as `<METHOD> <path template>`: sessions, the second factor,
 * the security log, the profile and e-mail address; everything under `/me/` (API keys themselves,
 * billing, invoices, limits, downgrade, archive and restore, the account's audit log: account-wide
 * views a key limited to projects must not see either); plan changes and invoices; accepting an
 * invitation. Staff routes are refused by their auth level.
 */
const ACCOUNT_ONLY: readonly RegExp[] = [
  /^\w+ \/auth\/(sessions|totp)(\/|$)/,
  /^\w+ \/auth\/me\/security-log$/,
  /^PATCH \/auth\/me$/,
  /^\w+ \/me\//,
  /^\w+ \/(subscriptions|invoice)\//,
  /^POST \/invites\/\{invite_id\}\/accept$/,
];

/**
 * POSTs that change nothing in the catalog, so a `read` key may send them, each with the test of its
 * validated body: a plan (a dry-run import writes only its document and its job record), the upload URL
 * a big plan's document goes through, a ticket to follow a job. A pull request's CI job can then hold a
 * read key: its branch can plan but never apply.
 */
const READING_POSTS: Readonly<Record<string, (body: unknown) => boolean>> = {
  'POST /impex/import': (body) => (body as { dry_run?: unknown } | undefined)?.dry_run === 'true',
  'POST /impex/upload-url': () => true,
  'POST /impex/progress-ticket': () => true,
};

type KeyRoute = { method: string; path: string; staff: boolean };
const routeKey = (route: KeyRoute) => `${route.method} ${route.path}`;
/** `write` includes reading: a CI job that applies must read what it changes. */
const canWrite = (grant: KeyGrant) => grant.scopes.includes('write');

/**
 * Why a key's token may not call this route (null: it may), asked before the request is validated:
 * account-only and staff routes, then writes without `write` — except the reading POSTs, whose body
 * decides once it is validated (`keyBodyRefusal`).
 */
export function keyGrantRefusal(route: KeyRoute, grant: KeyGrant): string | null {
  if (route.staff || ACCOUNT_ONLY.some((r) => r.test(routeKey(route)))) return KEY_TOKEN_ACCOUNT_ONLY;
  if (!SAFE_METHODS.has(route.method) && !canWrite(grant) && !(routeKey(route) in READING_POSTS))
    return KEY_TOKEN_READ_ONLY;
  return null;
}

/** Why a key's token may not send this validated body (null: it may): a reading POST whose body writes (an import that is not a dry run) needs `write`. */
export function keyBodyRefusal(route: KeyRoute, grant: KeyGrant, body: unknown): string | null {
  const reads = READING_POSTS[routeKey(route)];
  return reads && !canWrite(grant) && !reads(body) ? KEY_TOKEN_READ_ONLY : null;
}

/** The routes a `read` key may POST to (for the test that none is stale). */
export const READING_POST_ROUTES = Object.keys(READING_POSTS);

/** Whether the caller may reach `projectId` at all, given the projects its key is limited to (null or absent: a person, or a key of every project). */
export const keyAllowsProject = (keyProjects: readonly string[] | null | undefined, projectId: string): boolean =>
  !keyProjects || keyProjects.includes(projectId);
