import type { KeyGrant } from '#shared/actor';

/**
 * What a token exchanged for an API key may reach (issue 36), decided once: the pipeline asks
 * `keyGrantRefusal` of every authenticated route; the project limit is `keyAllowsProject`, asked where
 * a project's access is loaded. See docs/decisions.md "API keys as a CI credential".
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

/** Why a key's token may not call this route (null: it may): account-only and staff routes, then writes without `write`. */
export function keyGrantRefusal(route: { method: string; path: string; staff: boolean }, grant: KeyGrant): string | null {
  if (route.staff || ACCOUNT_ONLY.some((r) => r.test(`${route.method} ${route.path}`))) return KEY_TOKEN_ACCOUNT_ONLY;
  // `write` includes reading: a CI job that applies must read what it changes.
  if (!SAFE_METHODS.has(route.method) && !grant.scopes.includes('write')) return KEY_TOKEN_READ_ONLY;
  return null;
}

/** Whether the caller may reach `projectId` at all, given the projects its key is limited to (null or absent: a person, or a key of every project). */
export const keyAllowsProject = (keyProjects: readonly string[] | null | undefined, projectId: string): boolean =>
  !keyProjects || keyProjects.includes(projectId);
