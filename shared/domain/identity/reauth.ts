import { verifyPassword } from '#auth/passwords';
import { unauthenticated } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import type { Account } from './accounts.ts';
import { lockedOut, lockedUntil, loginFailures, refuseAndCount } from './lockout.ts';
import { hasSecondFactor, verifySecondFactor } from './second-factor.ts';
import { perAddressPerMinute } from './rate-limit.ts';
import type { ClientMeta } from './sessions.ts';
import { recordSecurityEvent, type RefusalReason, type SecurityEventInput } from './security-log.ts';

/** Refusals of a re-check (the second-factor ones are sign-in's own words, SPEC "Errors"). */
export const CURRENT_PASSWORD_REQUIRED = 'Current password required';
export const INVALID_PASSWORD = 'Invalid password';
export const SECOND_FACTOR_REQUIRED = 'TOTP code required';
export const SECOND_FACTOR_INVALID = 'TOTP code required or invalid';

/**
 * Every password check of an address shares sign-in's per-address budget (LOGIN_RATE_LIMIT_PER_MINUTE):
 * a password guessed through a re-check costs the same as one guessed through POST /auth/login.
 */
const PASSWORD_CHECKS_BUCKET = 'login';

/** What a signed-in caller presents to prove, again, who they are. */
export interface IdentityProof {
  current_password?: string | null;
  /** A six-digit authenticator code or a single-use recovery code; required when the account has an authenticator. */
  totp_code?: string | null;
  /** Where the request comes from: password checks are rate-limited per source address. */
  client: ClientMeta;
}

/**
 * Checks a signed-in caller's password like sign-in does: past the source address's budget 429
 * first; a lock in force on the address answers 423 whatever the password; a wrong password counts
 * towards the same lockout as a failed sign-in (401 'Invalid password', or 423 when it locks).
 */
export async function checkPassword(
  account: Account,
  password: string,
  client: ClientMeta,
  ctx: AppContext,
): Promise<void> {
  await perAddressPerMinute(PASSWORD_CHECKS_BUCKET, client.sourceIp, ctx.config.LOGIN_RATE_LIMIT_PER_MINUTE, ctx);
  const [valid, failures] = await Promise.all([
    verifyPassword(account.password_hash, password),
    loginFailures(account.email),
  ]);
  const lockEnd = lockedUntil(failures, ctx);
  if (lockEnd) {
    await recordSecurityEvent(account.id, recheckRefused('locked'), ctx);
    throw lockedOut(lockEnd, ctx);
  }
  if (!valid)
    await refuseAndCount(account.email, INVALID_PASSWORD, ctx, {
      userId: account.id,
      entry: recheckRefused('invalid_password'),
    });
}

/** A refused re-check of a signed-in caller, for the account's security log (the caller is the actor). */
const recheckRefused = (reason: RefusalReason): SecurityEventInput => ({ event: 'reauth.refused', reason });

/**
 * Recent proof of identity for a sensitive change (removing an authenticator, changing the e-mail,
 * regenerating recovery codes): an access token alone may be stolen, so the caller presents the
 * current password and, when the account has an authenticator, a code from it or a recovery code
 * (used up). A missing password or code is 401 without counting (the client asks for it); a wrong
 * one counts towards the sign-in lockout.
 */
export async function requireRecentProof(ctx: AppContext, proof: IdentityProof): Promise<Account> {
  const account = actorAccount(ctx);
  if (!proof.current_password) throw unauthenticated(CURRENT_PASSWORD_REQUIRED);
  await checkPassword(account, proof.current_password, proof.client, ctx);
  if (!hasSecondFactor(account)) return account;
  const code = proof.totp_code?.trim();
  if (!code) throw unauthenticated(SECOND_FACTOR_REQUIRED);
  if (!(await verifySecondFactor(account, code, ctx)))
    await refuseAndCount(account.email, SECOND_FACTOR_INVALID, ctx, {
      userId: account.id,
      entry: recheckRefused('totp_invalid'),
    });
  return account;
}
