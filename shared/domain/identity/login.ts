import { verifyAgainstDecoy, verifyPassword } from '#auth/passwords';
import { unauthorized } from '#http/errors';
import type { Reply } from '#http/route';
import type { AppContext } from '#shared/context';
import { findAccountByEmail, recordLogin, type Account } from './accounts';
import { startSession, type ClientMeta } from './sessions';
import { clearLoginFailures, lockedOut, lockedUntil, loginFailures, recordLoginFailure } from './lockout';
import { hasSecondFactor, verifySecondFactor } from './second-factor';
import { ACCEPT_INVITATION_FIRST, invitationBlocksLogin } from '#domain/tenancy';

/** SPEC "Errors", login refusals. */
export const INVALID_CREDENTIALS = 'Invalid credentials';
export const TOTP_CODE_REQUIRED = 'TOTP code required';
export const TOTP_CODE_INVALID = 'TOTP code required or invalid';
export const TOTP_SETUP_REQUIRED = 'TOTP required. Please configure an authenticator app to sign in to this account.';

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
 * 4. account-level gates (pending invitation, second factor); a wrong second factor counts as a failure;
 * 5. success clears the failure count, records the login and starts a session.
 * The source-address rate limit runs before all of this, in the route.
 */
export async function login(input: LoginInput, meta: ClientMeta, ctx: AppContext): Promise<Reply> {
  const [account, failures] = await Promise.all([findAccountByEmail(input.email), loginFailures(input.email)]);
  const valid = account ? await verifyPassword(account.password_hash, input.password) : await verifyAgainstDecoy(input.password);
  const lockEnd = lockedUntil(failures, ctx);
  if (lockEnd) throw lockedOut(lockEnd);
  if (!account || !account.is_active || !valid) return refuseAndCount(input.email, INVALID_CREDENTIALS, ctx);
  await refuseWhileInvitationPending(account, ctx);
  await requireSecondFactor(account, input.totp_code, ctx);
  await Promise.all([recordLogin(account.id, ctx), failures ? clearLoginFailures(input.email) : undefined]);
  return startSession(account, meta, ctx);
}

/** Counts a failed attempt and refuses it: 423 when this attempt locked sign-in, else 401 with `detail`. */
async function refuseAndCount(email: string, detail: string, ctx: AppContext): Promise<never> {
  const lockEnd = await recordLoginFailure(email, ctx);
  if (lockEnd) throw lockedOut(lockEnd);
  throw unauthorized(detail);
}

/**
 * SPEC "Errors": while a pending, unexpired invitation exists for the address, sign-in answers 401
 * 'Please accept your invitation via the email link before logging in' — only for an account that
 * has never signed in (see `invitationBlocksLogin`).
 */
async function refuseWhileInvitationPending(account: Account, ctx: AppContext): Promise<void> {
  if (await invitationBlocksLogin(account, ctx)) throw unauthorized(ACCEPT_INVITATION_FIRST);
}

/**
 * An account with an authenticator must send a code (a missing one is not a failed attempt: the
 * client simply asks for it); without one, a policy requiring MFA refuses sign-in until one is set up.
 */
async function requireSecondFactor(account: Account, presented: string | null | undefined, ctx: AppContext): Promise<void> {
  if (!hasSecondFactor(account)) {
    if (ctx.config.MFA_REQUIRED) throw unauthorized(TOTP_SETUP_REQUIRED);
    return;
  }
  const code = presented?.trim();
  if (!code) throw unauthorized(TOTP_CODE_REQUIRED);
  if (!(await verifySecondFactor(account, code, ctx))) await refuseAndCount(account.email, TOTP_CODE_INVALID, ctx);
}
