import { verifyAgainstDecoy, verifyPassword } from '#auth/passwords';
import { unauthenticated } from '#shared/errors';
import type { AppContext } from '#shared/context';
import { findAccountByEmail, recordLogin, type Account } from './accounts';
import { startSession, type ClientMeta, type TokenPair } from './sessions';
import { clearLoginFailures, lockedOut, lockedUntil, loginFailures, recordLoginFailure } from './lockout';
import { hasSecondFactor, verifySecondFactor } from './second-factor';

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
}

/**
 * Password sign-in, in this order:
 * 1. the account and the address's failure counter are read together, and the password is always
 *    verified (against a decoy hash for an unknown address), so timing reveals nothing;
 * 2. a lock in force answers 423, whatever the password;
 * 3. an unknown address, a blocked account or a wrong password: 401 'Invalid credentials', counted
 *    alike (the attempt reaching the threshold already answers 423), so the three look the same;
 * 4. account-level gates (the callers' `gates`, e.g. a pending invitation; then the second factor); a wrong second factor counts as a failure;
 * 5. success clears the failure count, records the login and starts a session.
 * The source-address rate limit runs before all of this, in the route.
 */
export async function login(input: LoginInput, meta: ClientMeta, ctx: AppContext, gates: SignInGate[] = []): Promise<TokenPair> {
  const [account, failures] = await Promise.all([findAccountByEmail(input.email), loginFailures(input.email)]);
  const valid = account ? await verifyPassword(account.password_hash, input.password) : await verifyAgainstDecoy(input.password);
  const lockEnd = lockedUntil(failures, ctx);
  if (lockEnd) throw lockedOut(lockEnd);
  if (!account || !account.is_active || !valid) return refuseAndCount(input.email, INVALID_CREDENTIALS, ctx);
  for (const gate of gates) if (await gate.refuses(account, ctx)) throw unauthenticated(gate.detail);
  await requireSecondFactor(account, input.totp_code, ctx);
  await Promise.all([recordLogin(account.id, ctx), failures ? clearLoginFailures(input.email) : undefined]);
  return startSession(account, meta, ctx);
}

/** Counts a failed attempt and refuses it: 423 when this attempt locked sign-in, else 401 with `detail`. */
async function refuseAndCount(email: string, detail: string, ctx: AppContext): Promise<never> {
  const lockEnd = await recordLoginFailure(email, ctx);
  if (lockEnd) throw lockedOut(lockEnd);
  throw unauthenticated(detail);
}

/**
 * An account with an authenticator must send a code (a missing one is not a failed attempt: the
 * client simply asks for it); without one, a policy requiring MFA refuses sign-in until one is set up.
 */
async function requireSecondFactor(account: Account, presented: string | null | undefined, ctx: AppContext): Promise<void> {
  if (!hasSecondFactor(account)) {
    if (ctx.config.MFA_REQUIRED) throw unauthenticated(TOTP_SETUP_REQUIRED);
    return;
  }
  const code = presented?.trim();
  if (!code) throw unauthenticated(TOTP_CODE_REQUIRED);
  if (!(await verifySecondFactor(account, code, ctx))) await refuseAndCount(account.email, TOTP_CODE_INVALID, ctx);
}
