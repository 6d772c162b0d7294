import { keys } from '#db/keys';
import { batchGet, keyId } from '#db/batch-get';
import { putNewStep, putStep } from '#db/steps';
import type { TransactStep } from '#db/transact';
import { conflict, type DomainError, forbidden, unauthenticated } from '#shared/errors';
import type { AppContext } from '#shared/context';
import { hashPassword } from '#auth/passwords';
import { log } from '#shared/log';
import { auditStep } from '#shared/audit';
import { accountCreationSteps, buildAccount, securityLogStep, type Account } from '#domain/identity';
import { envRoleStep, membershipSteps } from '#domain/tenancy';
import { accountRefEntity } from './entities.ts';
import { domainOf, type SsoConnection } from './connection.ts';
import type { IDToken } from 'openid-client';
import {
  ACCOUNT_EXISTS,
  DOMAIN_NOT_VERIFIED,
  EMAIL_NOT_VERIFIED,
  IDENTITY_LINKED_ELSEWHERE,
  LINK_EMAIL_MISMATCH,
  SSO_CONNECTION_GONE,
  SSO_FAILED,
  callbackUrl,
  clientOf,
  random,
  type StoredState,
} from './sign-in.ts';

/**
 * The account rule of the callback: the IdP's answer checked, then which account it signs into,
 * links to or creates (with its membership), as a login code's outcome and the steps that write it.
 */

/** What a login code stands for: an account to sign in, or the refusal to answer (so the dashboard can show it). */
export type CodeOutcome =
  | { user_id: string; sso_project_id: string; issuer: string }
  | { refusal: { kind: 'forbidden' | 'conflict' | 'unauthenticated'; detail: string } };

export const refusal = (err: DomainError): CodeOutcome => ({
  refusal: { kind: err.kind as 'forbidden', detail: String(err.detail) },
});

export async function decide(
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
  // A missing email_verified counts as false; the address must be one this product accepts at all (as at
  // registration), not any string the provider asserts. The schema is loaded here, not at the function's start.
  const { email: emailSchema } = await import('#shared/schemas');
  if (claims.email_verified !== true || !emailSchema().safeParse(email).success) throw forbidden(EMAIL_NOT_VERIFIED);
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
