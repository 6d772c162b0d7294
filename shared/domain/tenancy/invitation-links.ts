import { keys } from '#db/keys';
import type { TransactStep } from '#db/transact';
import { newSecret, sha256 } from '#auth/tokens';
import { epochSeconds, type AppContext } from '#shared/context';
import type { Account, SignInGate } from '#domain/identity';
import { queryPartition } from '#db/query';
import { batchGet, keyId } from '#db/batch-get';
import { isLive } from '#db/live';
import { getItem } from '#db/items';
import { deleteStep, putNewStep, putStep } from '#db/steps';
import type { Invitation, InvitationLinkItem } from './invitation-state.ts';

/*
 * An invitation's link (token hash → invitation) and the open-invitation index by address: the
 * writes that make them, and their reads (the link a token presents, the sign-in gate).
 */

export const ACCEPT_INVITATION_FIRST = 'Please accept your invitation via the email link before logging in';

/** A link item outlives its invitation's expiry this long, so an old link answers "expired"/"accepted" rather than "not found". */
const KEEP_LINK_DAYS = 30;

/** A fresh link: the token (for the mail only) and the writes that make it valid until `expires`. */
export function linkSteps(
  invite: Invitation,
  expires: Date,
): { token: string; tokenHash: string; steps: TransactStep[] } {
  const token = newSecret(); // 256 bits
  const tokenHash = sha256(token);
  const link: InvitationLinkItem = {
    project_id: invite.project_id,
    invite_id: invite.id,
    invited_email: invite.invited_email,
  };
  const steps: TransactStep[] = [
    putNewStep({
      ...keys.inviteToken(tokenHash),
      type: 'invite_token',
      ...link,
      expires_at_epoch: epochSeconds(expires) + KEEP_LINK_DAYS * 86_400,
    }),
    openIndexStep(invite, expires),
  ];
  return { token, tokenHash, steps };
}

/** Marks the invitation open for its address (what login asks about); gone once accepted or revoked. */
const openIndexStep = (invite: Invitation, expires: Date): TransactStep =>
  putStep({
    ...keys.invitedEmail(invite.invited_email, invite.id),
    type: 'invited_email',
    project_id: invite.project_id,
    invite_id: invite.id,
    expires_at: expires.toISOString(),
    expires_at_epoch: epochSeconds(expires) + 86_400,
  });
export const closeIndexStep = (invite: Pick<Invitation, 'invited_email' | 'id'>): TransactStep =>
  deleteStep(keys.invitedEmail(invite.invited_email, invite.id));

/**
 * Whether a pending, unexpired invitation exists for the address: one Query on the open-invitation
 * index, plus one BatchGet only when something is pending (invitations of deleted projects don't count).
 */
export async function hasPendingInvitation(ctx: AppContext, input: { email: string }): Promise<boolean> {
  const open = await queryPartition<{ project_id: string }>(keys.invitedEmailPK(input.email.trim()), '', {
    filter: 'expires_at > :now',
    values: { ':now': ctx.clock.now().toISOString() },
  });
  if (!open.length) return false;
  const projects = await batchGet(open.map((o) => keys.project(o.project_id)));
  return open.some((o) => isLive(projects.get(keyId(keys.project(o.project_id)))));
}

/**
 * SPEC login refusal 'Please accept your invitation via the email link before logging in': only for
 * an account that has never signed in. An account that has signed in before is never locked out by
 * an invitation someone else sent to its address.
 */
export async function invitationBlocksLogin(account: Account, ctx: AppContext): Promise<boolean> {
  if (account.last_login_at) return false;
  return hasPendingInvitation(ctx, { email: account.email });
}

/**
 * SPEC "Errors": while a pending, unexpired invitation exists for the address, sign-in answers 401
 * 'Please accept your invitation via the email link before logging in' (see `invitationBlocksLogin`).
 */
export const pendingInvitationGate: SignInGate = { refuses: invitationBlocksLogin, detail: ACCEPT_INVITATION_FIRST };

/** The link item for a presented token (one GetItem by its hash), or undefined. */
export async function findInvitationLink(
  token: string,
): Promise<(InvitationLinkItem & { tokenHash: string }) | undefined> {
  const tokenHash = sha256(token);
  const link = await getItem<InvitationLinkItem>(keys.inviteToken(tokenHash));
  return link ? { ...link, tokenHash } : undefined;
}
