import type { AppContext } from '#shared/context';
import { findAccountByEmail, type Account } from './accounts.ts';
import { createAccount } from './registration.ts';

/**
 * Ensures a staff superuser with this address exists; an existing account is left as it is.
 * Shared by the local start (BOOTSTRAP_ADMIN_*), `npm run admin` and the cloud seeding function.
 */
export async function ensureStaff(
  ctx: AppContext,
  input: { email: string; password: string },
): Promise<{ account: Account; created: boolean }> {
  const { email, password } = input;
  const existing = await findAccountByEmail(email);
  if (existing) return { account: existing, created: false };
  const account = await createAccount(
    { email, account_type: 'staff', is_staff: true, is_superuser: true, admin_role: 'superuser' },
    password,
    ctx,
  );
  return { account, created: true };
}
