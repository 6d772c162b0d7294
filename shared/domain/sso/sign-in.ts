import { createHash, randomBytes } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { keys } from '#db/keys';
import { getItem, putItem } from '#db/items';
import { batchGet, keyId } from '#db/batch-get';
import { invalid, notFound } from '#shared/errors';
import { epochSeconds, type AppContext } from '#shared/context';
import { open } from '#auth/secret-box';
import { requireRecentProof, type IdentityProof } from '#domain/identity';
import { planOfProject, projectEntity, type Project } from '#domain/tenancy';
import type { SsoState } from './entities.ts';
import { ssoConnectionEntity, domainOf, secretContext, type SsoConnection } from './connection.ts';
import { clientFor, openidClient } from './openid.ts';

/**
 * Single sign-on through a project's OpenID Connect connection: the flow's start (a sign-in, or a link
 * from a signed-in account) up to the redirect to the IdP, and what the later steps share: the answers'
 * details, how long a state and a login code live, the callback URL, the IdP client on the stack's clock.
 */

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

export const STATE_TTL_S = 600;
export const CODE_TTL_S = 60;
const SCOPE = 'openid email profile';

export const sha256 = (s: string) => createHash('sha256').update(s).digest('base64url');
export const random = () => randomBytes(32).toString('base64url');
export const callbackUrl = (ctx: AppContext) => `${ctx.config.API_BASE_URL.replace(/\/$/, '')}/auth/sso/callback`;

export type StoredState = SsoState;

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
export async function connectionAndProject(
  projectId: string,
): Promise<{ connection?: SsoConnection; project?: Project }> {
  const items = await batchGet([keys.ssoConnection(projectId), keys.project(projectId)]);
  const c = items.get(keyId(keys.ssoConnection(projectId)));
  return {
    connection: ssoConnectionEntity.decodeFound(c),
    project: projectEntity.decodeFound(items.get(keyId(keys.project(projectId)))),
  };
}

/** A client configuration whose clock is the stack's (ID token expiry is judged at the stack's time). */
export async function clientOf(connection: SsoConnection, ctx: AppContext) {
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
