import { verifyAgainstDecoy, verifyPassword } from '../auth/passwords';
import { unauthorized } from '../http/errors';
import type { Reply } from '../http/route';
import type { AppContext } from '../context';
import { findAccountByEmail, recordLogin } from './accounts';
import { startSession, type ClientMeta } from './sessions';

export const INVALID_CREDENTIALS = 'Invalid credentials';

export interface LoginInput {
  email: string;
  password: string;
  totp_code?: string | null;
}

/**
 * Password sign-in. The order matters for timing and enumeration: the password is always verified
 * (against a decoy hash for an unknown address) before anything about the account is revealed.
 */
export async function login(input: LoginInput, meta: ClientMeta, ctx: AppContext): Promise<Reply> {
  const account = await findAccountByEmail(input.email);
  const valid = account ? await verifyPassword(account.password_hash, input.password) : await verifyAgainstDecoy(input.password);
  if (!account || !valid || !account.is_active) throw unauthorized(INVALID_CREDENTIALS);
  await recordLogin(account.id, ctx);
  return startSession(account, meta, ctx);
}
