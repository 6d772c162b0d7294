import { createHash, randomBytes } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { keys } from '#db/keys';
import { deleteItem, getItem, putItem } from '#db/items';
import { batchGet, keyId } from '#db/batch-get';
import { putNewStep, putStep } from '#db/steps';
import { transact, type TransactStep } from '#db/transact';
import { conflict, DomainError, forbidden, invalid, notFound, unauthenticated } from '#shared/errors';
import { epochSeconds, type AppContext } from '#shared/context';
import { open } from '#auth/secret-box';
import { hashPassword } from '#auth/passwords';
import { log } from '#shared/log';
import { auditStep } from '#shared/audit';
import {
  accountCreationSteps,
  buildAccount,
  getAccount,
  recordLogin,
  requireRecentProof,
  securityLogStep,
  sessionStart,
  type Account,
  type ClientMeta,
  type IdentityProof,
  type SignInGate,
  type TokenPair,
} from '#domain/identity';
import { USER_NOT_FOUND_OR_INACTIVE } from '#auth/caller';
import { envRoleStep, membershipSteps, planOfProject, projectEntity, type Project } from '#domain/tenancy';
import { accountRefEntity, loginCodeEntity, ssoStateEntity, type SsoState } from './entities';
import { decodeConnection, domainOf, secretContext, type SsoConnection } from './connection';
import type { IDToken } from 'openid-client';
import { clientFor, openidClient } from './openid';

/** SPEC-style details of every answer of the flow. */
export const NO_SSO_FOR_DOMAIN = 'No single sign-on for this e-mail domain';
export const RETURN_TO_REFUSED = 'return_to must be this site or a loopback address';
export const INVALID_STATE = 'Invalid or expired sign-in state';
export const INVALID_LOGIN_CODE = 'Invalid or expired login code';
export const SSO_FAILED = "Single sign-on failed: the identity provider's answer was refused";
export const EMAIL_NOT_VERIFIED = 'The identity provider has not verified this e-mail address';
export const DOMAIN_NOT_VERIFIED = 'This e-mail domain is not verified for this single sign-on connection';
export const ACCOUNT_EXISTS =
  'An account with this e-mail already exists. Sign in with your password, then link single sign-on from your account settings.';
export const IDENTITY_LINKED_ELSEWHERE = 'This identity is already linked to another account';
export const SSO_CONNECTION_GONE = 'The single sign-on connection no longer exists';
export const LINK_EMAIL_MISMATCH = "The identity's e-mail address is not this account's";
/** The cookie that binds a sign-in's state to the browser that started it. */
export const SSO_BINDING_COOKIE = 'sso_binding';

const STATE_TTL_S = 600;
const CODE_TTL_S = 60;
const SCOPE = 'openid email profile';

const sha256 = (s: string) => createHash('sha256').update(s).digest('base64url');
const random = () => randomBytes(32).toString('base64url');
const callbackUrl = (ctx: AppContext) => `${ctx.config.API_BASE_URL.replace(/\/$/, '')}/auth/sso/callback`;

type StoredState = SsoState;

/** What a login code stands for: an account to sign in, or the refusal to answer (so the dashboard can show it). */
type CodeOutcome =
  | { user_id: string; sso_project_id: string; issuer: string }
  | { refusal: { kind: 'forbidden' | 'conflict' | 'unauthenticated'; detail: string } };

/**
 * `return_to` may only be this product's own origin (the dashboard, the API) or a loopback address
 * (RFC 8252: the CLI's redirect), so the flow is never an open redirect.
 */
export function returnToAllowed(raw: string, ctx: Pick<AppContext, 'config'>): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  const own = [ctx.config.APP_BASE_URL, ctx.config.API_BASE_URL].map((u) => new URL(u).origin);
  if (own.includes(url.origin)) return true;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return url.protocol === 'http:' && ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback';
}

/** The connection (and its project) of a project, read together. */
async function connectionAndProject(projectId: string): Promise<{ connection?: SsoConnection; project?: Project }> {
  const items = await batchGet([keys.ssoConnection(projectId), keys.project(projectId)]);
  const c = items.get(keyId(keys.ssoConnection(projectId)));
  return {
    connection: c ? decodeConnection(c) : undefined,
    project: projectEntity.decodeFound(items.get(keyId(keys.project(projectId)))),
  };
}

/** A client configuration whose clock is the stack's (ID token expiry is judged at the stack's time). */
async function clientOf(connection: SsoConnection, ctx: AppContext) {
  const secret = await open(connection.client_secret_sealed, secretContext(connection.project_id));
  const config = await clientFor(connection.issuer, connection.client_id, secret, ctx.config);
  const oidc = await openidClient();
  (config as unknown as Record<symbol, number>)[oidc.clockSkew] = Math.round(
    (ctx.clock.now().getTime() - Date.now()) / 1000,
  );
  return { config, oidc };
}

/** Builds the redirect to the IdP (authorization code, PKCE S256, state, nonce) and stores the state. */
async function redirectToIdp(
  ctx: AppContext,
  connection: SsoConnection,
  input: { email: string; return_to: string; link_user_id: string | null; link_email?: string; binding?: string },
): Promise<string> {
  const { config, oidc } = await clientOf(connection, ctx);
  const code_verifier = oidc.randomPKCECodeVerifier();
  const nonce = oidc.randomNonce();
  // The state names its project, so the callback reads the connection beside consuming the state (one round trip).
  const state = `${connection.project_id}.${random()}`;
  const now = ctx.clock.now();
  const stored: StoredState = {
    project_id: connection.project_id,
    code_verifier,
    nonce,
    return_to: input.return_to,
    link_user_id: input.link_user_id,
    link_email: input.link_email ?? null,
    binding_hash: input.binding ? sha256(input.binding) : null,
    created_at: now.toISOString(),
  };
  await putItem({
    ...keys.ssoState(sha256(state)),
    type: 'sso_state',
    ...stored,
    expires_at_epoch: epochSeconds(now) + STATE_TTL_S,
  });
  return oidc.buildAuthorizationUrl(config, {
    redirect_uri: callbackUrl(ctx),
    scope: SCOPE,
    state,
    nonce,
    login_hint: input.email,
    code_challenge: await oidc.calculatePKCECodeChallenge(code_verifier),
    code_challenge_method: 'S256',
  }).href;
}

/** The verified connection of an address's domain, or 404 (also when its owner's plan lost `sso`). */
async function connectionForEmail(email: string): Promise<{ connection: SsoConnection; project: Project }> {
  const domain = domainOf(email);
  const claim = await getItem<{ project_id: string; verified: boolean }>(keys.ssoDomain(domain));
  if (!claim?.verified) throw notFound(NO_SSO_FOR_DOMAIN);
  const { connection, project } = await connectionAndProject(claim.project_id);
  if (!connection || !project || !connection.domains.some((d) => d.domain === domain && d.verified))
    throw notFound(NO_SSO_FOR_DOMAIN);
  const plan = await planOfProject(project);
  if (!plan.features.sso) throw notFound(NO_SSO_FOR_DOMAIN);
  return { connection, project };
}

/** GET /auth/sso/start: where to send the browser (302), and the binding the route sets as a cookie on it. */
export async function startSsoSignIn(
  ctx: AppContext,
  input: { email: string; return_to: string },
): Promise<{ location: string; binding: string }> {
  if (!returnToAllowed(input.return_to, ctx)) throw invalid(RETURN_TO_REFUSED);
  const { connection } = await connectionForEmail(input.email);
  const binding = random();
  return { location: await redirectToIdp(ctx, connection, { ...input, link_user_id: null, binding }), binding };
}

/**
 * POST /auth/sso/link: a signed-in person (password re-entered, and a code where an authenticator is
 * enrolled) starts the same flow; its callback links the identity to this account, and only to it.
 * The connection is the one of `email`'s domain (the account's own address by default).
 */
export async function startSsoLink(
  ctx: AppContext,
  input: IdentityProof & { email?: string | null; return_to: string },
): Promise<string> {
  if (!returnToAllowed(input.return_to, ctx)) throw invalid(RETURN_TO_REFUSED);
  const account = await requireRecentProof(ctx, input);
  const email = input.email ?? account.email;
  const { connection } = await connectionForEmail(email);
  return redirectToIdp(ctx, connection, {
    email,
    return_to: input.return_to,
    link_user_id: account.id,
    link_email: account.email,
  });
}

/** The state, consumed: single use (a delete that answers what it deleted), 10 minutes. */
async function consumeState(state: string | undefined, ctx: AppContext): Promise<StoredState> {
  if (!state || state.length > 600) throw invalid(INVALID_STATE);
  const item = ssoStateEntity.decodeFound(await deleteItem(keys.ssoState(sha256(state))));
  if (!item || ctx.clock.now().getTime() - Date.parse(item.created_at) > STATE_TTL_S * 1000)
    throw invalid(INVALID_STATE);
  return item;
}

const refusal = (err: DomainError): CodeOutcome => ({
  refusal: { kind: err.kind as 'forbidden', detail: String(err.detail) },
});

/**
 * GET /auth/sso/callback: the state checked (400 here when bad), then the code exchanged and the ID
 * token checked by openid-client (signature against the IdP's JWKS, issuer, audience, expiry, nonce,
 * PKCE), `email_verified` required, and the account rule applied (decision 0951):
 * 1. an identity (issuer, sub) linked to an account signs into that account;
 * 2. otherwise the token's e-mail must be in a verified domain of this connection (403);
 * 3. a link flow links the identity to the account that started it (409 when linked to another);
 * 4. otherwise an existing account with that e-mail is never entered (409: sign in with the password and link);
 * 5. otherwise an account is created (no password) and made a member of the project with `jit_role`.
 * Every outcome after a good state is a one-time login code on `return_to` (60 s): POST /auth/sso/token
 * answers the sign-in or the refusal. Round trips: state and connection together, the identity and
 * the e-mail together, then one write.
 */
export async function finishSsoSignIn(
  ctx: AppContext,
  input: { query: Record<string, string>; binding?: string },
): Promise<string> {
  const state = input.query.state;
  const projectId = state?.split('.')[0] ?? '';
  const [stored, { connection }] = await Promise.all([
    consumeState(state, ctx),
    /^[0-9a-f-]{36}$/.test(projectId) ? connectionAndProject(projectId) : Promise.resolve({ connection: undefined }),
  ]);
  // a sign-in started in another browser (a link sent to a victim: login CSRF) does not finish here
  if (stored.binding_hash && (!input.binding || sha256(input.binding) !== stored.binding_hash))
    throw invalid(INVALID_STATE);
  const { outcome, steps } = await decide(ctx, stored, connection, input.query, state!).catch((err: unknown) => {
    if (err instanceof DomainError) return { outcome: refusal(err), steps: [] as TransactStep[] };
    throw err;
  });
  const code = random();
  const now = ctx.clock.now();
  const codeItem = {
    ...keys.ssoLoginCode(sha256(code)),
    type: 'sso_login_code',
    ...outcome,
    created_at: now.toISOString(),
    expires_at_epoch: epochSeconds(now) + CODE_TTL_S,
  };
  await transact([putNewStep(codeItem), ...steps]);
  const back = new URL(stored.return_to);
  back.searchParams.set('login_code', code);
  return back.href;
}

async function decide(
  ctx: AppContext,
  stored: StoredState,
  connection: SsoConnection | undefined,
  query: Record<string, string>,
  state: string,
): Promise<{ outcome: CodeOutcome; steps: TransactStep[] }> {
  if (!connection || connection.project_id !== stored.project_id) throw unauthenticated(SSO_CONNECTION_GONE);
  const { config, oidc } = await clientOf(connection, ctx);
  const current = new URL(callbackUrl(ctx));
  for (const [k, v] of Object.entries(query)) current.searchParams.set(k, v);
  let claims: IDToken | undefined;
  try {
    const tokens = await oidc.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: stored.code_verifier,
      expectedState: state,
      expectedNonce: stored.nonce,
      idTokenExpected: true,
    });
    claims = tokens.claims();
  } catch (err) {
    log.warn('sso.callback_refused', { project_id: connection.project_id, reason: (err as Error).message });
    throw unauthenticated(SSO_FAILED);
  }
  if (!claims) throw unauthenticated(SSO_FAILED);
  const issuer = connection.issuer;
  const sub = claims.sub;
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
  // a missing claim counts as false
  if (claims.email_verified !== true || !email) throw forbidden(EMAIL_NOT_VERIFIED);
  const items = await batchGet([keys.ssoIdentity(issuer, sub), keys.email(email)]);
  const link = accountRefEntity.decodeFound(items.get(keyId(keys.ssoIdentity(issuer, sub))));
  const signIn = (userId: string): CodeOutcome => ({ user_id: userId, sso_project_id: connection.project_id, issuer });
  if (stored.link_user_id) {
    if (link && link.user_id !== stored.link_user_id) throw conflict(IDENTITY_LINKED_ELSEWHERE);
    if (link) return { outcome: signIn(link.user_id), steps: [] };
    if (!domainVerified(connection, email)) throw forbidden(DOMAIN_NOT_VERIFIED);
    if (stored.link_email && stored.link_email.toLowerCase() !== email) throw forbidden(LINK_EMAIL_MISMATCH);
    return {
      outcome: signIn(stored.link_user_id),
      steps: [
        ...linkSteps(ctx, stored.link_user_id, issuer, sub, email, connection.project_id),
        securityLogStep(stored.link_user_id, { event: 'sso.linked', actor: 'self', details: { issuer, email } }, ctx),
      ],
    };
  }
  if (link) return { outcome: signIn(link.user_id), steps: [] };
  if (!domainVerified(connection, email)) throw forbidden(DOMAIN_NOT_VERIFIED);
  const existing = accountRefEntity.decodeFound(items.get(keyId(keys.email(email))));
  if (existing) {
    return {
      outcome: refusal(conflict(ACCOUNT_EXISTS)),
      steps: [
        securityLogStep(
          existing.user_id,
          { event: 'sign_in.refused', reason: 'sso_account_exists', actor: 'anonymous', details: { issuer } },
          ctx,
        ),
      ],
    };
  }
  const account = buildAccount(
    {
      email,
      password_hash: await hashPassword(random()),
      name: typeof claims.name === 'string' ? claims.name.slice(0, 200) : null,
      account_type: 'project_user',
    },
    ctx,
  );
  return { outcome: signIn(account.id), steps: jitSteps(ctx, account, connection, sub, email) };
}

const domainVerified = (c: SsoConnection, email: string) =>
  c.domains.some((d) => d.domain === domainOf(email) && d.verified);

/** The identity and its account-side mirror, written together; the identity only when no account holds it. */
function linkSteps(
  ctx: AppContext,
  userId: string,
  issuer: string,
  sub: string,
  email: string,
  projectId: string,
): TransactStep[] {
  const at = ctx.clock.now().toISOString();
  const link = { issuer, sub, user_id: userId, email, project_id: projectId, linked_at: at };
  return [
    putNewStep(
      { ...keys.ssoIdentity(issuer, sub), type: 'sso_identity', ...link },
      conflict(IDENTITY_LINKED_ELSEWHERE),
    ),
    putStep({ ...keys.ssoLink(userId, issuer, sub), type: 'sso_link', ...link }),
  ];
}

/** Just-in-time: the account (no password; e-mail verified by the IdP), its identity, its membership with `jit_role`, in one transaction. */
function jitSteps(ctx: AppContext, account: Account, c: SsoConnection, sub: string, email: string): TransactStep[] {
  const now = ctx.clock.now().toISOString();
  return [
    ...accountCreationSteps(account).map((s) => ({ ...s, failWith: conflict(ACCOUNT_EXISTS) })),
    securityLogStep(
      account.id,
      { event: 'account.created', actor: 'self', details: { account_type: account.account_type, via: 'sso' } },
      ctx,
    ),
    ...linkSteps(ctx, account.id, c.issuer, sub, email, c.project_id),
    ...membershipSteps(c.project_id, account.id, 'member', now),
    // the project's audit log shows who joined, and how (the service acted: no one was signed in)
    ...auditStep(
      ctx,
      {
        action: 'member.create',
        entity_type: 'member',
        entity_id: account.id,
        project_id: c.project_id,
        before: null,
        after: { user_id: account.id, email: account.email, role: 'member' },
        summary: { via: 'sso', jit_role: c.jit_role?.role ?? null },
      },
      { mode: 'creation' },
    ),
    ...(c.jit_role
      ? [envRoleStep(c.project_id, c.jit_role.environment_id, account.id, c.jit_role.role, ctx.ids.newId())]
      : []),
  ];
}

/**
 * POST /auth/sso/token: the login code (single use, 60 s) answers what POST /auth/login answers:
 * a session (marked as this connection's, for required SSO) with its token pair, or the refusal the
 * callback reached. No second factor is asked: the IdP authenticated the person.
 */
export async function exchangeLoginCode(
  ctx: AppContext,
  input: { login_code: string; client: ClientMeta },
  gates: SignInGate[] = [],
): Promise<TokenPair> {
  const item = loginCodeEntity.decodeFound(await deleteItem(keys.ssoLoginCode(sha256(input.login_code))));
  if (!item || ctx.clock.now().getTime() - Date.parse(item.created_at) > CODE_TTL_S * 1000)
    throw invalid(INVALID_LOGIN_CODE);
  if (item.refusal) throw new DomainError(item.refusal.kind, item.refusal.detail);
  if (!item.user_id || !item.issuer || !item.sso_project_id) throw invalid(INVALID_LOGIN_CODE);
  const account = await getAccount(item.user_id);
  if (!account?.is_active) throw unauthenticated(USER_NOT_FOUND_OR_INACTIVE);
  for (const gate of gates) if (await gate.refuses(account, ctx)) throw unauthenticated(gate.detail);
  const signedIn = securityLogStep(
    account.id,
    {
      event: 'sign_in.succeeded',
      actor: 'self',
      details: { method: 'sso', issuer: item.issuer, project_id: item.sso_project_id },
    },
    ctx,
  );
  const session = sessionStart(account, input.client, ctx, { sso_project_id: item.sso_project_id });
  await recordLogin(account.id, ctx, [signedIn, session.step]);
  return session.tokens();
}
