import { concurrentChange, CASCADE_STALE } from '#db/transact';
import { onContention } from '#db/retry';
import { invalid } from '#shared/errors';
import type { EnvRole } from '#auth/permissions';
import type { AppContext } from '#shared/context';

/* An invitation as stored, what a client sees of it (InviteOut), and whether it is still open. */

/** SPEC "Invitation (InviteOut)": the role an invitation grants when it names none. */
export const DEFAULT_INVITE_ROLE: EnvRole = 'viewer';

export const INVITATION_NOT_FOUND = 'Invitation not found';
export const INVITATION_ACCEPTED = 'Invitation already accepted';
export const INVITATION_EXPIRED = 'Invitation expired';

import type { Invitation } from './invitation-entity.ts';

export type { Invitation };

/** The link item (`keys.inviteToken`): token hash → invitation. */
export interface InvitationLinkItem {
  project_id: string;
  invite_id: string;
  invited_email: string;
}

export const toInviteOut = (i: Invitation) => ({
  id: i.id,
  project_id: i.project_id,
  invited_email: i.invited_email,
  invited_first_name: i.invited_first_name,
  invited_last_name: i.invited_last_name,
  role: i.role ?? DEFAULT_INVITE_ROLE,
  invited_by_user_id: i.invited_by_user_id,
  environment_id: i.environment_id,
  group_id: i.group_id,
  subgroup_id: i.subgroup_id,
  accepted: i.accepted,
  created_at: i.created_at,
  accepted_at: i.accepted_at,
  expires_at: i.expires_at,
});

export const isExpired = (i: Pick<Invitation, 'expires_at'>, ctx: AppContext) =>
  i.expires_at <= ctx.clock.now().toISOString();
export const isRevoked = (i: Pick<Invitation, 'revoked_at'>) => Boolean(i.revoked_at);

/**
 * 400 for an invitation that is no longer pending (what acceptance and revocation refuse). A revoked
 * one, or a link replaced by a resend (`tokenHash`, when a link was presented), counts as expired.
 */
export function refuseClosed(invite: Invitation, ctx: AppContext, tokenHash?: string): void {
  if (invite.accepted) throw invalid(INVITATION_ACCEPTED);
  if (isRevoked(invite) || isExpired(invite, ctx) || (tokenHash !== undefined && tokenHash !== invite.token_hash))
    throw invalid(INVITATION_EXPIRED);
}

/**
 * A condition of an acceptance's or revocation's transaction failed: the invitation (or, for an
 * acceptance, the account) changed between our read and our write. The request is evaluated again
 * from fresh reads, which gives the precise answer (again while it keeps losing races: `onContention`).
 */
export const INVITATION_CHANGED = concurrentChange();
export const retryIfStale = <T>(attempt: () => Promise<T>): Promise<T> =>
  onContention(attempt, (err) => err === INVITATION_CHANGED || err === CASCADE_STALE);

export interface NewInvitation {
  project_id: string;
  invited_email: string;
  first_name?: string | null;
  last_name?: string | null;
  role?: EnvRole | null;
  environment_id?: string | null;
  group_id?: string | null;
  subgroup_id?: string | null;
}
