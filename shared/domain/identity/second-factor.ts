import type { AppContext } from '#shared/context';
import type { Account } from './accounts';
import { acceptAuthenticatorCode, authenticatorCount } from './totp-devices';
import { consumeRecoveryCode } from './recovery-codes';

/**
 * "The account has an authenticator": the one rule login, password reset (and invitation
 * acceptance) ask. Recovery codes alone do not make a second factor; they stand in for one.
 */
export const hasSecondFactor = (account: Account): boolean => authenticatorCount(account) > 0;

/** A six-digit code from an authenticator, or else a single-use recovery code (used up on success). */
export async function verifySecondFactor(account: Account, presented: string, ctx: AppContext): Promise<boolean> {
  const code = presented.replace(/\s/g, '');
  if (/^\d{6}$/.test(code)) return acceptAuthenticatorCode(account, code, ctx);
  return consumeRecoveryCode(account.id, code, ctx);
}
