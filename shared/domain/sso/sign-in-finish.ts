import { keys } from '#db/keys';
import { deleteItem } from '#db/items';
import { putNewStep } from '#db/steps';
import { transact, type TransactStep } from '#db/transact';
import { DomainError, invalid, unauthenticated } from '#shared/errors';
import { epochSeconds, type AppContext } from '#shared/context';
import {
  getAccount,
  recordLogin,
  securityLogStep,
  sessionStart,
  type ClientMeta,
  type SignInGate,
  type TokenPair,
} from '#domain/identity';
import { USER_NOT_FOUND_OR_INACTIVE } from '#auth/caller';
import { loginCodeEntity, ssoStateEntity } from './entities.ts';
import {
  CODE_TTL_S,
  INVALID_LOGIN_CODE,
  INVALID_STATE,
  STATE_TTL_S,
  connectionAndProject,
  random,
  sha256,
  type StoredState,
} from './sign-in.ts';
import { decide, refusal } from './account-rule.ts';

/**
 * The sign-in flow's end: the callback, which consumes the state and turns the IdP's answer into a
 * one-time login code on `return_to`, and that code's exchange for a session (or the refusal it holds).
 */

/** The state, consumed: single use (a delete that answers what it deleted), 10 minutes. */
async function consumeState(state: string | undefined, ctx: AppContext): Promise<StoredState> {
  if (!state || state.length > 600) throw invalid(INVALID_STATE);
  const item = ssoStateEntity.decodeFound(await deleteItem(keys.ssoState(sha256(state))));
  if (!item || ctx.clock.now().getTime() - Date.parse(item.created_at) > STATE_TTL_S * 1000)
    throw invalid(INVALID_STATE);
  return item;
}

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
