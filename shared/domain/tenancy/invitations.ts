/**
 * An invitation's owner operations (create, list, resend, revoke). The invitation as stored and
 * whether it is still open: invitation-state.ts; its link and the open-invitation index (and the
 * login gate they answer): invitation-links.ts; what it names: invitation-scope.ts; its mail's rate
 * limits: invitation-rate-limits.ts; acceptance: invitation-acceptance.ts.
 */
import { keys } from '#db/keys';
import { transact, type TransactStep, retryWhenStale } from '#db/transact';
import { invalid, notFound } from '#shared/errors';
import { mailStep } from '#mail/send';
import { oneLine } from '#mail/html';
import { projectEventStep } from '#shared/events';
import { actorAccount, type AppContext } from '#shared/context';
import type { Account } from '#domain/identity';
import { accessToProject, loadAccess } from './access.ts';
import { accessToItem } from './item-access.ts';
import { lookupStep } from '#db/lookup';
import { retentionOfProject } from './projects.ts';
import type { Project } from './project-types.ts';
import { changeAudit, creationAudit } from '#shared/audit';
import { invitationLink, invitationMail } from './invitation-mail.ts';
import { queryPrefix } from '#db/query';
import { allOf, setFieldsStep, type Condition } from '#db/live';
import { putNewStep } from '#db/steps';
import {
  DEFAULT_INVITE_ROLE,
  INVITATION_ACCEPTED,
  INVITATION_CHANGED,
  INVITATION_NOT_FOUND,
  refuseClosed,
  retryIfStale,
  type Invitation,
  type NewInvitation,
} from './invitation-state.ts';
import { closeIndexStep, linkSteps } from './invitation-links.ts';
import { invitationEntity } from './invitation-entity.ts';
import { limitInvitationMail } from './invitation-rate-limits.ts';
import { checkScope, scopeKeys } from './invitation-scope.ts';

/** SPEC "Other constants": an invitation is valid for 24 hours from creation or resend. */
export const INVITATION_VALID_HOURS = 24;

const validUntil = (ctx: AppContext) => new Date(ctx.clock.now().getTime() + INVITATION_VALID_HOURS * 3_600_000);

/** What an audit entry records of an invitation: what its owner reads of it (never its link's token hash). */
const auditedInvitation = ({ token_hash: _t, audit_head: _h, updated_at: _u, ...shown }: Invitation) => shown;

/**
 * POST /invites: invites an address into a project (owner only). Writes the invitation, its link,
 * the open-invitation index and the bare-id lookup in one transaction — nothing on the invited
 * account — with `user.invited` and the invitation's mail in its outbox.
 */
export async function createInvitation(ctx: AppContext, input: NewInvitation): Promise<Invitation> {
  const caller = actorAccount(ctx);
  const access = await loadAccess(input.project_id, caller.id, { extra: scopeKeys(input.project_id, input) });
  access.requireOwnerRight('invitations.manage');
  const scope = checkScope(access, input);
  const id = ctx.ids.newId();
  await limitInvitationMail(ctx, { id, project_id: access.project.id }, caller.id);
  const now = ctx.clock.now();
  const expires = validUntil(ctx);
  const invite: Invitation = {
    id,
    project_id: access.project.id,
    invited_email: input.invited_email.trim().toLowerCase(),
    invited_first_name: input.first_name || null,
    invited_last_name: input.last_name || null,
    role: input.role ?? null,
    invited_by_user_id: caller.id,
    environment_id: input.environment_id ?? null,
    ...scope,
    accepted: false,
    accepted_at: null,
    accepted_by_user_id: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    expires_at: expires.toISOString(),
    token_hash: '',
    revoked_at: null,
  };
  const link = linkSteps(invite, expires);
  invite.token_hash = link.tokenHash;
  const key = keys.invite(invite.project_id, invite.id);
  await transact([
    putNewStep({ ...key, type: 'invite', ...invite }),
    ...creationAudit(ctx, 'invitation', invite, auditedInvitation(invite)),
    ...link.steps,
    lookupStep(invite.id, invite.project_id, key, 'invite'),
    projectEventStep(
      'user.invited',
      invite.project_id,
      {
        invite_id: invite.id,
        project_id: invite.project_id,
        invited_email: invite.invited_email,
        role: invite.role ?? DEFAULT_INVITE_ROLE,
        environment_id: invite.environment_id,
        invited_by_user_id: invite.invited_by_user_id,
      },
      ctx,
    ),
    invitationMailStep(invite, link.token, access.project, caller, ctx),
  ]);
  return invite;
}

/** The invitation's mail, a step of the transaction that writes its link (the outbox): a mail-queue outage delays it, never loses it. */
function invitationMailStep(
  invite: Invitation,
  token: string,
  project: Project,
  inviter: Account,
  ctx: AppContext,
): TransactStep {
  const message = invitationMail({
    to: invite.invited_email,
    firstName: invite.invited_first_name,
    inviter: oneLine(inviter.name ?? '') || inviter.email,
    projectName: project.name,
    link: invitationLink(token, ctx),
    validHours: INVITATION_VALID_HOURS,
  });
  return mailStep(message, ctx);
}

/** GET /invites: a project's invitations, newest first (owner only). */
export async function listInvitations(ctx: AppContext, input: { project_id: string }): Promise<Invitation[]> {
  const access = await accessToProject(input.project_id, actorAccount(ctx).id);
  access.requireOwnerRight('invitations.manage');
  const invites = (await queryPrefix(input.project_id, keys.invitePrefix)).map(invitationEntity.decode);
  return invites.sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
}

/** The invitation with this id as its owner sees it. SPEC order: 404 when absent or the caller is no member, then 403. */
async function ownerAccessToInvitation(ctx: AppContext, inviteId: string) {
  const { access, item: invite } = await accessToItem({
    decode: invitationEntity.decode,
    kind: 'invite',
    id: inviteId,
    userId: actorAccount(ctx).id,
    scope: 'project',
    notFound: notFound(INVITATION_NOT_FOUND),
  });
  access.requireOwnerRight('invitations.manage');
  return { access, invite };
}

/** The condition of a write that keeps an invitation open: nobody accepted it meanwhile. */
const NOT_ACCEPTED: Condition = { expression: 'accepted = :f', values: { ':f': false } };

/**
 * POST /invites/{id}/resend: a new link valid for 24 hours from now, mailed afresh (at most once a
 * minute, see `limitInvitationMail`); the previous link stops working at once (its token no longer
 * matches). A pending, expired or revoked invitation is reopened; an accepted one is refused with 400
 * 'Invitation already accepted' (checked again in the write, so a resend never reopens an acceptance
 * that committed meanwhile).
 */
// Re-run from a new read when its write went stale (a concurrent change moved what it read, its audit head included: db/transact.ts).
export const resendInvitation = (...args: Parameters<typeof resendInvitationOnce>) =>
  retryWhenStale(() => resendInvitationOnce(...args));

async function resendInvitationOnce(ctx: AppContext, input: { id: string }): Promise<Invitation> {
  const { access, invite } = await ownerAccessToInvitation(ctx, input.id);
  if (invite.accepted) throw invalid(INVITATION_ACCEPTED);
  const caller = actorAccount(ctx);
  await limitInvitationMail(ctx, invite, caller.id);
  const now = ctx.clock.now().toISOString();
  const expires = validUntil(ctx);
  const link = linkSteps(invite, expires);
  const resent: Invitation = {
    ...invite,
    token_hash: link.tokenHash,
    expires_at: expires.toISOString(),
    revoked_at: null,
    updated_at: now,
  };
  const audit = changeAudit(
    ctx,
    'invitation',
    'resend',
    invite,
    { before: auditedInvitation(invite), after: auditedInvitation(resent) },
    await retentionOfProject(access.project),
  );
  await transact([
    setFieldsStep(
      keys.invite(invite.project_id, invite.id),
      {
        token_hash: resent.token_hash,
        expires_at: resent.expires_at,
        revoked_at: null,
        updated_at: now,
        audit_head: audit.head,
      },
      invalid(INVITATION_ACCEPTED),
      NOT_ACCEPTED,
    ),
    ...link.steps,
    ...audit.steps,
    invitationMailStep(resent, link.token, access.project, caller, ctx),
  ]);
  return resent;
}

/**
 * DELETE /invites/{id}: revokes a pending invitation; it expires now (the record is kept, listed and
 * resendable), is marked revoked, and its link stops working. One that is no longer pending is
 * refused like its acceptance (`refuseClosed`): 400 'Invitation already accepted', or 400
 * 'Invitation expired' when already revoked or expired by time (nothing written). The write is
 * conditioned on the invitation still being pending as read (not accepted, the same future
 * `expires_at`); when it changed meanwhile (a concurrent revoke, acceptance or resend) the request
 * is evaluated again from a fresh read, so of two concurrent revokes one answers 204 and the
 * other 400 'Invitation expired'. An acceptance committing after us finds it revoked and fails.
 */
// Re-run from a new read when its write went stale (a concurrent change moved what it read, its audit head included: db/transact.ts).
export async function revokeInvitation(ctx: AppContext, input: { id: string }): Promise<void> {
  await retryIfStale(async () => {
    const { access, invite } = await ownerAccessToInvitation(ctx, input.id);
    refuseClosed(invite, ctx);
    const now = ctx.clock.now().toISOString();
    const revoked: Invitation = { ...invite, expires_at: now, revoked_at: now, updated_at: now };
    const audit = changeAudit(
      ctx,
      'invitation',
      'revoke',
      invite,
      { before: auditedInvitation(invite), after: auditedInvitation(revoked) },
      await retentionOfProject(access.project),
    );
    await transact([
      setFieldsStep(
        keys.invite(invite.project_id, invite.id),
        { expires_at: now, revoked_at: now, updated_at: now, audit_head: audit.head },
        INVITATION_CHANGED,
        allOf(NOT_ACCEPTED, { expression: 'expires_at = :was', values: { ':was': invite.expires_at } }),
      ),
      closeIndexStep(invite),
      ...audit.steps,
    ]);
  });
}
