import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from '@infracat/client/schema';

/**
 * The dashboard's API client: openapi-fetch over the paths generated from `openapi.json` (the typed
 * client's `schema.d.ts`), so every path, parameter, body and answer is checked by the compiler.
 *
 * Tokens: the access token lives in this module's memory only (never in storage); the refresh token
 * only in the HttpOnly `refresh_token` cookie the API sets at sign-in, which this page cannot read.
 * On start and whenever the access token has expired, `POST /auth/token/refresh` with an empty JSON
 * body exchanges the cookie for a new access token (same origin, so the API's origin guard lets the
 * cookie-authenticated write through). A reload therefore keeps the session; closing it (sign out,
 * a revoked session) leaves nothing behind.
 */

type Json<R> = R extends { content: { 'application/json': infer T } } ? T : never;
export type Account = Json<paths['/auth/me']['get']['responses'][200]>;
export type Project = Json<paths['/projects']['get']['responses'][200]>[number];
export type Environment = Json<paths['/environments']['get']['responses'][200]>[number];
export type Service = Json<paths['/services/{service_id}']['get']['responses'][200]>;
export type ServiceInput = NonNullable<paths['/services']['post']['requestBody']>['content']['application/json'];
export type ServiceChanges = NonNullable<paths['/services/{service_id}']['patch']['requestBody']>['content']['application/json'];
export type Floor = Json<paths['/service-floors']['get']['responses'][200]>[number];
export type Network = Json<paths['/networks']['get']['responses'][200]>[number];
export type Connection = Json<paths['/service-connections']['get']['responses'][200]>[number];
export type ConnectionInput = NonNullable<paths['/service-connections']['post']['requestBody']>['content']['application/json'];
export type Link = Json<paths['/service-links']['get']['responses'][200]>[number];
export type Topology = Json<paths['/topology']['get']['responses'][200]>;
export type BlastRadius = Json<paths['/services/{service_id}/blast-radius']['get']['responses'][200]>;
export type ServiceQuery = NonNullable<paths['/services']['get']['parameters']['query']>;
// catalog: servers, networks and the logs
export type FloorInput = NonNullable<paths['/service-floors']['post']['requestBody']>['content']['application/json'];
export type FloorQuery = NonNullable<paths['/service-floors']['get']['parameters']['query']>;
export type NetworkInput = NonNullable<paths['/networks']['post']['requestBody']>['content']['application/json'];
export type NetworkQuery = NonNullable<paths['/networks']['get']['parameters']['query']>;
export type AuditEntry = Json<paths['/projects/{project_id}/audit-log']['get']['responses'][200]>[number];
export type AuditQuery = NonNullable<paths['/projects/{project_id}/audit-log']['get']['parameters']['query']>;
export type SecurityEntry = Json<paths['/auth/me/security-log']['get']['responses'][200]>[number];
export type Member = Json<paths['/projects/members/{project_id}']['get']['responses'][200]>[number];

// Ops screens (import & export, webhooks, plan & billing).
export type ImpexRecord = Json<paths['/impex/status/{job_id}']['get']['responses'][200]>;
export type ImportReport = NonNullable<ImpexRecord['report']>;
export type ImportBody = NonNullable<paths['/impex/import']['post']['requestBody']>['content']['multipart/form-data'];
export type ExportBody = NonNullable<paths['/impex/export']['post']['requestBody']>['content']['multipart/form-data'];
export type Webhook = Json<paths['/projects/{project_id}/webhooks/{webhook_id}']['get']['responses'][200]>;
export type WebhookInput = NonNullable<paths['/projects/{project_id}/webhooks']['post']['requestBody']>['content']['application/json'];
export type WebhookEvent = WebhookInput['events'][number];
export type DeliverySummary = Json<paths['/projects/{project_id}/webhooks/{webhook_id}/deliveries']['get']['responses'][200]>[number];
export type Delivery = Json<paths['/projects/{project_id}/webhooks/{webhook_id}/deliveries/{delivery_id}']['get']['responses'][200]>;
export type PingResult = Json<paths['/projects/{project_id}/webhooks/{webhook_id}/test']['post']['responses'][200]>;
export type Plan = Json<paths['/plans']['get']['responses'][200]>[number];
export type LimitsStatus = Json<paths['/me/limits/status']['get']['responses'][200]>;
export type Invoice = Json<paths['/me/invoices']['get']['responses'][200]>['items'][number];
export type InvoiceDetail = Json<paths['/me/invoices/{invoice_id}']['get']['responses'][200]>;
export type Preflight = Json<paths['/me/downgrade/preflight']['post']['responses'][200]>;
export type OverageCandidates = Json<paths['/me/limits/overage-candidates']['get']['responses'][200]>;
export type ArchiveSelection = NonNullable<paths['/me/mark-archived']['post']['requestBody']>['content']['application/json'];

/** A multipart route's body as the form it is sent as: plain fields as strings, `{filename, content_type, text}` as a file part. */
export function formData(body: object): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined || value === null) continue;
    if (typeof value === 'object' && 'text' in value) form.set(key, new Blob([value.text], { type: value.content_type }), value.filename);
    else form.set(key, String(value));
  }
  return form;
}

// people: members, invitations, project users, custom roles, the account's security (issue 25)
type Body<O> = O extends { requestBody?: { content: { 'application/json': infer T } } } ? T : never;
export type EnvRole = Json<paths['/environments/{environment_id}/roles']['get']['responses'][200]>[number];
export type EnvRoleName = EnvRole['role'];
export type Invitation = Json<paths['/invites']['get']['responses'][200]>[number];
export type InvitationInput = Body<paths['/invites']['post']>;
export type ProjectUser = Json<paths['/project-users']['get']['responses'][200]>[number];
export type ProjectUserInput = Body<paths['/project-users']['post']>;
export type CustomRole = Json<paths['/projects/{project_id}/custom-roles']['get']['responses'][200]>[number];
export type Permission = CustomRole['permissions'][number];
export type RoleAssignment = Json<paths['/projects/{project_id}/custom-roles/{role_id}/assignments']['get']['responses'][200]>[number];
export type AccountChanges = Body<paths['/auth/me']['patch']>;
export type SignInSession = Json<paths['/auth/sessions']['get']['responses'][200]>[number];
export type Authenticator = Json<paths['/auth/totp/devices']['get']['responses'][200]>[number];
export type ProvisionedSecret = Json<paths['/auth/totp/provision']['post']['responses'][200]>;
export type ApiKey = Json<paths['/me/api-keys']['get']['responses'][200]>[number];
export type NewApiKey = Json<paths['/me/api-keys']['post']['responses'][201]>;
export type ApiKeyInput = Body<paths['/me/api-keys']['post']>;

/** One item of a 422 answer (`detail` is then a list of them). */
export interface Issue {
  loc: (string | number)[];
  msg: string;
  type?: string;
}

/** A refusal of the API, with SPEC's `detail` (a sentence, or the 422 items). */
export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | Issue[] | undefined,
  ) {
    super(typeof detail === 'string' ? detail : Array.isArray(detail) ? detail.map((i) => `${fieldOf(i) || 'request'}: ${i.msg}`).join('; ') : `The service answered ${status}`);
  }

  /** 422 items by the field they name (`links`, `name`, …); items naming no field are under ''. */
  get fields(): Record<string, string> {
    const out: Record<string, string> = {};
    if (Array.isArray(this.detail)) for (const issue of this.detail) out[fieldOf(issue)] ??= issue.msg;
    return out;
  }
}

/** `['body', 'links', 0]` → `links`; `['query', 'limit']` → `limit`; `['body']` → ''. */
const fieldOf = (issue: Issue): string => String(issue.loc.slice(1).find((p) => typeof p === 'string') ?? '');

/** SPEC's refusal of a stale access token: refresh once and try again. */
const EXPIRED = 'Invalid or expired token';
/** Sign-in and the refresh itself never carry the access token. */
const WITHOUT_TOKEN = new Set(['/auth/login', '/auth/register', '/auth/token/refresh']);
/** Not a token: whether this browser had a session, so a first visit does not ask for a refresh it cannot get. */
const HAD_SESSION = 'infracat.had-session';

let accessToken: string | undefined;
let refreshing: Promise<boolean> | undefined;
let onSignedOut: () => void = () => {};

export const api = createClient<paths>({ baseUrl: location.origin, credentials: 'same-origin' });

const sent = new Map<string, Request>();
const auth: Middleware = {
  onRequest({ request, schemaPath, id }) {
    if (accessToken && !WITHOUT_TOKEN.has(schemaPath)) request.headers.set('authorization', `Bearer ${accessToken}`);
    sent.set(id, request.clone());
    return request;
  },
  async onResponse({ response, schemaPath, id }) {
    const original = sent.get(id);
    sent.delete(id);
    if (response.status !== 401 || WITHOUT_TOKEN.has(schemaPath) || !original) return response;
    const detail = await response.clone().json().then((b: { detail?: unknown }) => b.detail, () => undefined);
    if (detail !== EXPIRED) return response;
    if (!(await refreshSession())) {
      onSignedOut();
      return response;
    }
    original.headers.set('authorization', `Bearer ${accessToken}`);
    return fetch(original);
  },
  onError({ id }) {
    sent.delete(id);
  },
};
api.use(auth);

/** The success body of a call, or its refusal thrown as a `Problem`. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new Problem(response.status, (error as { detail?: string | Issue[] } | undefined)?.detail);
  return data as T;
}

/** A page of a cursor-paged list: its items and the `cursor` of the next page (SPEC's `X-Next-Cursor`; none on the last page). */
export async function okPage<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<{ items: T; next?: string }> {
  const answer = await call;
  return { items: await ok(Promise.resolve(answer)), next: answer.response.headers.get('x-next-cursor') ?? undefined };
}

/** Keeps the access token of a sign-in (the refresh token stays in its cookie). */
export function signedIn(tokens: { access_token: string }): void {
  accessToken = tokens.access_token;
  localStorage.setItem(HAD_SESSION, '1');
}

/** Exchanges the refresh cookie for a new access token; false when there is no session (any more). */
export function refreshSession(): Promise<boolean> {
  refreshing ??= (async () => {
    try {
      const { data, response } = await api.POST('/auth/token/refresh', { body: {} });
      if (!response.ok || !data) {
        forget();
        return false;
      }
      signedIn(data);
      return true;
    } finally {
      refreshing = undefined;
    }
  })();
  return refreshing;
}

/** On start: resumes the session of the refresh cookie when this browser had one. */
export const resumeSession = (): Promise<boolean> => (localStorage.getItem(HAD_SESSION) ? refreshSession() : Promise.resolve(false));

function forget(): void {
  accessToken = undefined;
  localStorage.removeItem(HAD_SESSION);
}

/** Ends the session on the service (the cookie's refresh token is revoked, both cookies cleared) and here. */
export async function signOut(): Promise<void> {
  try {
    await api.POST('/auth/logout', { body: {} });
  } finally {
    forget();
  }
}

/** Called when a refresh fails mid-session (revoked elsewhere, expired): the app goes back to sign-in. */
export function whenSignedOut(callback: () => void): void {
  onSignedOut = () => {
    forget();
    callback();
  };
}

/** Every service of an environment matching the filters, page after page (SPEC's limit/offset). */
export async function allServices(query: Omit<ServiceQuery, 'limit' | 'offset'>, onPage?: (sofar: Service[]) => void, signal?: AbortSignal): Promise<Service[]> {
  const limit = 1000;
  const out: Service[] = [];
  for (let offset = 0; ; offset += limit) {
    const page = await ok(api.GET('/services', { params: { query: { ...query, limit, offset } }, signal }));
    out.push(...page);
    onPage?.(out);
    if (page.length < limit) return out;
  }
}
