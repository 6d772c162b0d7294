import { createInfracatClient } from '@infracat/client/client';
import { ApiError } from '@infracat/client/errors';
import type { paths } from '@infracat/client/schema';

/**
 * The dashboard's API client: the typed client package (`@infracat/client`, openapi-fetch over the paths
 * generated from `openapi.json`), so every path, parameter, body and answer is checked by the compiler,
 * and a refusal is thrown as the package's `ApiError` (after its own retries of 429/503 and a
 * 409 with `Retry-After`).
 *
 * Tokens: the access token lives in the client's memory only (never in storage); the refresh token
 * only in the HttpOnly `refresh_token` cookie the API sets at sign-in, which this page cannot read
 * (the client's `refreshCookie` mode). On start and whenever the access token has expired,
 * `POST /auth/token/refresh` with an empty JSON body exchanges the cookie for a new access token (same
 * origin, so the API's origin guard lets the cookie-authenticated write through). A reload therefore
 * keeps the session; closing it (sign out, a revoked session) leaves nothing behind.
 */

type Json<R> = R extends { content: { 'application/json': infer T } } ? T : never;
export type Account = Json<paths['/auth/me']['get']['responses'][200]>;
export type Project = Json<paths['/projects']['get']['responses'][200]>[number];
export type Environment = Json<paths['/environments']['get']['responses'][200]>[number];
export type Service = Json<paths['/services/{service_id}']['get']['responses'][200]>;
export type ServiceInput = NonNullable<paths['/services']['post']['requestBody']>['content']['application/json'];
export type Floor = Json<paths['/service-floors']['get']['responses'][200]>[number];
export type Network = Json<paths['/networks']['get']['responses'][200]>[number];
export type Connection = Json<paths['/service-connections']['get']['responses'][200]>[number];
export type ConnectionInput = NonNullable<
  paths['/service-connections']['post']['requestBody']
>['content']['application/json'];
export type Topology = Json<paths['/topology']['get']['responses'][200]>;
export type BlastRadius = Json<paths['/services/{service_id}/blast-radius']['get']['responses'][200]>;
export type ServiceQuery = NonNullable<paths['/services']['get']['parameters']['query']>;
// catalog: servers, networks and the logs
export type FloorInput = NonNullable<paths['/service-floors']['post']['requestBody']>['content']['application/json'];
export type FloorQuery = NonNullable<paths['/service-floors']['get']['parameters']['query']>;
export type NetworkQuery = NonNullable<paths['/networks']['get']['parameters']['query']>;
export type AuditEntry = Json<paths['/projects/{project_id}/audit-log']['get']['responses'][200]>[number];
export type SecurityEntry = Json<paths['/auth/me/security-log']['get']['responses'][200]>[number];
export type Member = Json<paths['/projects/members/{project_id}']['get']['responses'][200]>[number];

// Ops screens (import & export, webhooks, plan & billing).
export type ImpexRecord = Json<paths['/impex/status/{job_id}']['get']['responses'][200]>;
export type ImportReport = NonNullable<ImpexRecord['report']>;
export type ImportBody = NonNullable<paths['/impex/import']['post']['requestBody']>['content']['multipart/form-data'];
export type ExportBody = NonNullable<paths['/impex/export']['post']['requestBody']>['content']['multipart/form-data'];
export type Webhook = Json<paths['/projects/{project_id}/webhooks/{webhook_id}']['get']['responses'][200]>;
export type WebhookInput = NonNullable<
  paths['/projects/{project_id}/webhooks']['post']['requestBody']
>['content']['application/json'];
export type WebhookEvent = WebhookInput['events'][number];
export type DeliverySummary = Json<
  paths['/projects/{project_id}/webhooks/{webhook_id}/deliveries']['get']['responses'][200]
>[number];
export type Delivery = Json<
  paths['/projects/{project_id}/webhooks/{webhook_id}/deliveries/{delivery_id}']['get']['responses'][200]
>;
export type PingResult = Json<paths['/projects/{project_id}/webhooks/{webhook_id}/test']['post']['responses'][200]>;
export type Plan = Json<paths['/plans']['get']['responses'][200]>[number];
export type LimitsStatus = Json<paths['/me/limits/status']['get']['responses'][200]>;
export type InvoiceDetail = Json<paths['/me/invoices/{invoice_id}']['get']['responses'][200]>;
export type Preflight = Json<paths['/me/downgrade/preflight']['post']['responses'][200]>;
export type OverageCandidates = Json<paths['/me/limits/overage-candidates']['get']['responses'][200]>;
export type ArchiveSelection = NonNullable<
  paths['/me/mark-archived']['post']['requestBody']
>['content']['application/json'];

// people: members, invitations, project users, custom roles, the account's security
type Body<O> = O extends { requestBody?: { content: { 'application/json': infer T } } } ? T : never;
export type EnvRole = Json<paths['/environments/{environment_id}/roles']['get']['responses'][200]>[number];
export type EnvRoleName = EnvRole['role'];
export type Invitation = Json<paths['/invites']['get']['responses'][200]>[number];
export type ProjectUser = Json<paths['/project-users']['get']['responses'][200]>[number];
export type CustomRole = Json<paths['/projects/{project_id}/custom-roles']['get']['responses'][200]>[number];
export type Permission = CustomRole['permissions'][number];
export type RoleAssignment = Json<
  paths['/projects/{project_id}/custom-roles/{role_id}/assignments']['get']['responses'][200]
>[number];
export type SignInSession = Json<paths['/auth/sessions']['get']['responses'][200]>[number];
export type Authenticator = Json<paths['/auth/totp/devices']['get']['responses'][200]>[number];
export type ProvisionedSecret = Json<paths['/auth/totp/provision']['post']['responses'][200]>;
export type ApiKey = Json<paths['/me/api-keys']['get']['responses'][200]>[number];
export type NewApiKey = Json<paths['/me/api-keys']['post']['responses'][201]>;
export type ApiKeyInput = Body<paths['/me/api-keys']['post']>;

export { ApiError };
export { multipart } from '@infracat/client/client';
export { cursorPage } from '@infracat/client/paging';

/** Not a token: whether this browser had a session, so a first visit does not ask for a refresh it cannot get. */
const HAD_SESSION = 'infracat.had-session';

let onSignedOut: () => void = () => {};

export const client = createInfracatClient({
  baseUrl: location.origin,
  refreshCookie: true,
  // A person is waiting: a brief throttle is retried, a longer wait (a resend's minute) is shown at once with its time.
  retry: { maxDelaySeconds: 3 },
  onSessionEnded: () => onSignedOut(),
});
export const api = client.api;

/** The success body of a call (the client throws every refusal as an `ApiError`). */
export const ok = async <T>(call: Promise<{ data?: T }>): Promise<T> => (await call).data as T;

/** Keeps the access token of a sign-in (the refresh token stays in its cookie). */
export async function signedIn(tokens: { access_token: string }): Promise<void> {
  await client.signedIn(tokens);
  localStorage.setItem(HAD_SESSION, '1');
}

/** Exchanges the refresh cookie for a new access token; false when there is no session (any more). */
async function refreshSession(): Promise<boolean> {
  try {
    await client.refresh();
    return true;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    localStorage.removeItem(HAD_SESSION);
    return false;
  }
}

/** On start: resumes the session of the refresh cookie when this browser had one. */
export const resumeSession = (): Promise<boolean> =>
  localStorage.getItem(HAD_SESSION) ? refreshSession() : Promise.resolve(false);

/** Ends the session on the service (the cookie's refresh token is revoked, both cookies cleared) and here. */
export async function signOut(): Promise<void> {
  try {
    await client.logout();
  } finally {
    localStorage.removeItem(HAD_SESSION);
  }
}

/** Called when a refresh fails mid-session (revoked elsewhere, expired): the app goes back to sign-in. */
export function whenSignedOut(callback: () => void): void {
  onSignedOut = () => {
    localStorage.removeItem(HAD_SESSION);
    callback();
  };
}
export type CustomField = Json<paths['/projects/{project_id}/custom-fields']['get']['responses'][200]>[number];
