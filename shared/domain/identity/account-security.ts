import { actorAccount, type AppContext } from '#shared/context';
import { checkPassword, requireRecentProof, type IdentityProof } from './reauth.ts';
import { deleteAuthenticator } from './totp-devices.ts';
import { replaceRecoveryCodes } from './recovery-codes.ts';
import type { ClientMeta } from './sessions.ts';

/**
 * The second-factor changes a stolen access token must not be enough for: each asks for recent proof
 * of identity (`requireRecentProof`: the password, and a code when the account has an authenticator).
 */

/** Removes one of the caller's authenticators, once the caller has proven who it is; 404 when the caller has no such device. */
export async function removeAuthenticator(
  ctx: AppContext,
  input: { device_id: string } & IdentityProof,
): Promise<void> {
  const account = await requireRecentProof(ctx, input);
  await deleteAuthenticator(account.id, input.device_id, ctx);
}

/** Ten fresh recovery codes replacing the caller's set, once the caller has proven who it is; shown this once. */
export async function regenerateRecoveryCodes(ctx: AppContext, input: IdentityProof): Promise<string[]> {
  const account = await requireRecentProof(ctx, input);
  return replaceRecoveryCodes(account.id, ctx);
}

/**
 * Legacy: clearing a single-secret TOTP. Accounts here only ever had named authenticators, so there
 * is no single secret to clear; the password is still checked like every password (401 when wrong,
 * counted towards the sign-in lockout, rate-limited per source address).
 */
export async function deleteLegacyTotp(
  ctx: AppContext,
  input: { password: string; client: ClientMeta },
): Promise<void> {
  await checkPassword(actorAccount(ctx), input.password, input.client, ctx);
}
