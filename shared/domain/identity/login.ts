import { verifyAgainstDecoy, verifyPassword } from '#auth/passwords';
import { unauthenticated } from '#shared/errors';
import type { AppContext } from '#shared/context';
import { findAccountByEmail, recordLogin, type Account } from './accounts.ts';
import { sessionStart, type ClientMeta, type TokenPair } from './sessions.ts';
import { clearLoginFailures, lockedOut, lockedUntil, loginFailures, refuseAndCount } from './lockout.ts';
import { hasSecondFactor, secondFactorKind, verifySecondFactor } from './second-factor.ts';
import { recordSecurityEvent, securityLogStep, type RefusalReason, type SecurityEventInput } from './security-log.ts';
import { perAddressPerMinute } from './rate-limit.ts';

/** SPEC "Errors", login refusals. */
export const INVALID_CREDENTIALS = 'Invalid credentials';
export const TOTP_CODE_REQUIRED = 'TOTP code required';
export const TOTP_CODE_INVALID = 'TOTP code required or invalid';
export const TOTP_SETUP_REQUIRED = 'TOTP required. Please configure an authenticator app to sign in to this account.';

/**
 * A rule another context adds to sign-in, checked after the password (tenancy: a pending invitation
 * must be accepted first). When `refuses`, sign-in answers 401 with its `detail`.
 */
export interface SignInGate {
  refuses(account: Account, ctx: AppContext): Promise<boolean>;
  detail: string;
}

export interface LoginInput {
  email: string;
  password: string;
  totp_code?: string | null;
  /** Where the request comes from: rate-limited per source address, recorded on the session. */
  client: ClientMeta;
}

/**
 * Password sign-in, in this order:
 * 0. the source address's rate limit (SPEC "Rate limits"): past it, 429 before anything is read;
 * 1. the account and the address's failure counter are read together, and the password is always
 *    verified (against a decoy hash for an unknown address), so timing reveals nothing;
 * 2. a lock in force answers 423, whatever the password;
 * 3. an unknown address, a blocked account or a wrong password: 401 'Invalid credentials', counted
 *    alike (the attempt reaching the threshold already answers 423), so the three look the same;
 * 4. account-level gates (the callers' `gates`, e.g. a pending invitation; then the second factor); a wrong second factor counts as a failure;
 * 5. success clears the failure count, records the login and starts a session.
 * The `gates` come from the caller (the route composes them: identity knows no other context).
 * Every outcome for an address with an account goes to that account's security log (refusals with
 * their reason code, success with its last-login update); an unknown address writes nothing.
 */
export async function login(ctx: AppContext, input: LoginInput, gates: SignInGate[] = []): Promise<TokenPair> {
  await perAddressPerMinute('login', input.client.sourceIp, ctx.config.LOGIN_RATE_LIMIT_PER_MINUTE, ctx);
  const [account, failures] = await Promise.all([findAccountByEmail(input.email), loginFailures(input.email)]);
  const lockEnd = lockedUntil(failures, ctx);
  // A known account's refusal under a lock is logged while the password is verified (which every attempt waits for).
  const [valid] = await Promise.all([
    account ? verifyPassword(account.password_hash, input.password) : verifyAgainstDecoy(input.password),
    lockEnd && account ? recordSecurityEvent(account.id, refused('locked'), ctx) : undefined,
  ]);
  if (lockEnd) throw lockedOut(lockEnd, ctx);
  if (!account?.is_active || !valid)
    return refuseAndCount(
      input.email,
      INVALID_CREDENTIALS,
      ctx,
      account && { userId: account.id, entry: refused('invalid_credentials') },
    );
  for (const gate of gates)
    if (await gate.refuses(account, ctx)) await refuseUncounted(account, 'sign_in_gate', gate.detail, ctx);
  const secondFactor = await requireSecondFactor(account, input.totp_code, ctx);
  const signedIn = securityLogStep(
    account.id,
    { event: 'sign_in.succeeded', actor: 'self', details: { second_factor: secondFactor } },
    ctx,
  );
  // The session is written with the last login and the entry: one transaction.
  const session = sessionStart(account, input.client, ctx);
  await Promise.all([
    recordLogin(account.id, ctx, [signedIn, session.step]),
    failures ? clearLoginFailures(input.email) : undefined,
  ]);
  return session.tokens();
}

/** A refused sign-in's entry: whoever tried has not proven to be the account holder. */
const refused = (reason: RefusalReason): SecurityEventInput => ({
  event: 'sign_in.refused',
  reason,
  actor: 'anonymous',
});

/** A refusal that does not count towards the lockout (the password was right; something else is missing): logged, then 401. */
async function refuseUncounted(
  account: Account,
  reason: RefusalReason,
  detail: string,
  ctx: AppContext,
): Promise<never> {
  await recordSecurityEvent(account.id, refused(reason), ctx);
  throw unauthenticated(detail);
}

/**
 * An account with an authenticator must send a code (a missing one is not a failed attempt: the
 * client simply asks for it); without one, a policy requiring MFA refuses sign-in until one is set up.
 * Answers which second factor signed in (`totp`, `recovery_code`), or null when none was asked.
 */
async function requireSecondFactor(
  account: Account,
  presented: string | null | undefined,
  ctx: AppContext,
): Promise<'totp' | 'recovery_code' | null> {
  if (!hasSecondFactor(account)) {
    if (ctx.config.MFA_REQUIRED) await refuseUncounted(account, 'totp_setup_required', TOTP_SETUP_REQUIRED, ctx);
    return null;
  }
  const code = presented?.trim();
  if (!code) return refuseUncounted(account, 'totp_required', TOTP_CODE_REQUIRED, ctx);
  if (!(await verifySecondFactor(account, code, ctx)))
    await refuseAndCount(account.email, TOTP_CODE_INVALID, ctx, { userId: account.id, entry: refused('totp_invalid') });
  return secondFactorKind(code);
}
