import { keys } from '#db/keys';
import { updateItem } from '#db/items';
import { IF_EXISTS, setExpression } from '#db/steps';
import { actorAccount, type AppContext } from '#shared/context';
import { normalizeEmail, type Account } from './accounts.ts';
import { requireRecentProof, type IdentityProof } from './reauth.ts';
import { ensureEmailFree, startEmailChange } from './email-change.ts';

export type ProfilePatch = Partial<
  Pick<
    Account,
    'email' | 'name' | 'phone' | 'preferred_language' | 'navigation_mode' | 'job_title' | 'timezone' | 'table_density'
  >
>;

/**
 * Updates the caller's profile fields (those sent). A new e-mail (other than the current one) needs
 * recent proof of identity (`requireRecentProof`) and must be free; it is not set here: a link is
 * mailed to it and the old address is told (`startEmailChange`), and the answer still shows the
 * current address until the link is opened. The other fields need no proof.
 */
export async function updateProfile(
  ctx: AppContext,
  input: ProfilePatch & Partial<IdentityProof> & Pick<IdentityProof, 'client'>,
): Promise<Account> {
  const account = actorAccount(ctx);
  const { email: requested, current_password, totp_code, client, ...rest } = input;
  const newEmail = requested ? normalizeEmail(requested) : account.email;
  const emailChanging = newEmail !== account.email;
  if (emailChanging) {
    await requireRecentProof(ctx, { current_password, totp_code, client });
    await ensureEmailFree(newEmail);
  }
  const fields = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  const next: Account = { ...account, ...fields, updated_at: ctx.clock.now().toISOString() };
  await updateItem(keys.account(account.id), {
    ...setExpression({ ...fields, updated_at: next.updated_at }),
    ...IF_EXISTS,
  });
  if (emailChanging) await startEmailChange(account, newEmail, ctx);
  return next;
}
