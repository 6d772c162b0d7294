/** How often invitation mail may go out: each invitation's, inviter's and project's windows (429 with Retry-After). */
import type { AppContext } from '#shared/context';
import { enforceRateLimit } from '#domain/identity';

/** 429 of one invitation's mail cooldown (Retry-After says when). SPEC words no 429 detail; this names the limit hit. */
export const INVITATION_SENT_RECENTLY = 'This invitation was sent recently. Please wait before resending it.';

/**
 * Invitation mail abuse: every invitation and resend sends a mail to an address the caller chose, so
 * each counts in four windows (429 with Retry-After once one is full), narrowest first: the
 * invitation's own minute and hour (one mail a minute and a few an hour reach its recipient; the
 * creation is its first), the inviter's hour across all their projects, then the project's, whoever
 * its owners are. Checked after authorization and validation, before anything is written. A refused
 * request does not count in the window that refused it nor in the wider ones after it, so a burst of
 * resends of one invitation costs the inviter and the project one mail, not the burst.
 */
export async function limitInvitationMail(
  ctx: AppContext,
  invite: { id: string; project_id: string },
  inviterId: string,
): Promise<void> {
  const c = ctx.config;
  await enforceRateLimit(
    `invitations#invite#${invite.id}#minute`,
    c.INVITATION_RATE_LIMIT_PER_INVITATION_PER_MINUTE,
    60,
    ctx,
    INVITATION_SENT_RECENTLY,
  );
  await enforceRateLimit(
    `invitations#invite#${invite.id}#hour`,
    c.INVITATION_RATE_LIMIT_PER_INVITATION_PER_HOUR,
    3600,
    ctx,
    INVITATION_SENT_RECENTLY,
  );
  await enforceRateLimit(`invitations#inviter#${inviterId}`, c.INVITATION_RATE_LIMIT_PER_INVITER_PER_HOUR, 3600, ctx);
  await enforceRateLimit(
    `invitations#project#${invite.project_id}`,
    c.INVITATION_RATE_LIMIT_PER_PROJECT_PER_HOUR,
    3600,
    ctx,
  );
}
