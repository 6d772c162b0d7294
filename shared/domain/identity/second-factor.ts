import type { AppContext } from '#shared/context';
import type { Account } from './accounts.ts';
import { acceptAuthenticatorCode, authenticatorCount } from './totp-devices.ts';
import { consumeRecoveryCode } from './recovery-codes.ts';

/**
 * "The account has an authenticator": the one rule login, password reset (and invitation
 * acceptance) ask. Recovery codes alone do not make a second factor; they stand in for one.
 */
export const hasSecondFactor = (account: Account): boolean => authenticatorCount(account) > 0;

/** Which kind of second factor a presented code is: six digits are an authenticator's, anything else a recovery code. */
export const secondFactorKind = (presented: string): 'totp' | 'recovery_code' =>
  /^\d{6}$/.test(presented.replace(/\s/g, '')) ? 'totp' : 'recovery_code';

/** A six-digit code from an authenticator, or else a single-use recovery code (used up on success). */
export async function verifySecondFactor(account: Account, presented: string, ctx: AppContext): Promise<boolean> {
  const code = presented.replace(/\s/g, '');
  if (secondFactorKind(code) === 'totp') return acceptAuthenticatorCode(account, code, ctx);
  return consumeRecoveryCode(account.id, code, ctx);
}
