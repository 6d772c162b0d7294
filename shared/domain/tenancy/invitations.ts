import { keys } from '#db/keys';
import { concurrentChange, transact, type TransactStep, retryWhenStale, CASCADE_STALE } from '#db/transact';
import { invalid, notFound } from '#shared/errors';
import { newSecret, sha256 } from '#auth/tokens';
import type { EnvRole } from '#auth/permissions';
import { mailStep } from '#mail/send';
import { oneLine } from '#mail/html';
import { projectEventStep } from '#shared/events';
import { actorAccount, epochSeconds, type AppContext } from '#shared/context';
import { enforceRateLimit, type Account, type SignInGate } from '#domain/identity';
import { accessToProject, loadAccess, type ProjectAccess } from './access';
import { accessToItem } from './item-access';
import { ENV_NOT_IN_PROJECT } from './env-scope';
import { GROUP_NOT_IN_ENV } from './groups';
import { lookupStep } from '#db/lookup';
import { retentionOfProject } from './projects';
import type { Project } from './project-types';
import { changeAudit, creationAudit } from '#shared/audit';
import { invitationLink, invitationMail } from './invitation-mail';
import { queryPartition, queryPrefix } from '#db/query';
import { batchGet, keyId } from '#db/batch-get';
import { allOf, isLive, setFieldsStep, type Condition } from '#db/live';
import { getItem } from '#db/items';
import { deleteStep, putNewStep, putStep } from '#db/steps';
import { onContention } from '#db/retry';
import { invitationEntity, type Invitation } from './invitation-entity';
import { subgroupEntity } from './group-entity';

/** SPEC "Other constants": an invitation is valid for 24 hours from creation or resend. */
export const INVITATION_VALID_HOURS = 24;
/** SPEC "Invitation (InviteOut)": the role an invitation grants when it names none. */
export const DEFAULT_INVITE_ROLE: EnvRole = 'viewer';
/** A link item outlives its invitation's expiry this long, so an old link answers "expired"/"accepted" rather than "not found". */
const KEEP_LINK_DAYS = 30;

export const INVITATION_NOT_FOUND = 'Invitation not found';
export const INVITATION_ACCEPTED = 'Invitation already accepted';
export const INVITATION_EXPIRED = 'Invitation expired';
export const SUBGROUP_NOT_IN_GROUP = 'Subgroup not found or does not belong to group';
export const ACCEPT_INVITATION_FIRST = 'Please accept your invitation via the email link before logging in';
/** 429 of one invitation's mail cooldown (Retry-After says when). SPEC words no 429 detail; this names the limit hit. */
export const INVITATION_SENT_RECENTLY = 'This invitation was sent recently. Please wait before resending it.';

export type { Invitation } from './invitation-entity';

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
export type InviteOut = ReturnType<typeof toInviteOut>;

export const isExpired = (i: Pick<Invitation, 'expires_at'>, ctx: AppContext) => i.expires_at <= ctx.clock.now().toISOString();
export const isRevoked = (i: Pick<Invitation, 'revoked_at'>) => Boolean(i.revoked_at);

/**
 * 400 for an invitation that is no longer pending (what acceptance and revocation refuse). A revoked
 * one, or a link replaced by a resend (`tokenHash`, when a link was presented), counts as expired.
 */
export function refuseClosed(invite: Invitation, ctx: AppContext, tokenHash?: string): void {
  if (invite.accepted) throw invalid(INVITATION_ACCEPTED);
  if (isRevoked(invite) || isExpired(invite, ctx) || (tokenHash !== undefined && tokenHash !== invite.token_hash)) throw invalid(INVITATION_EXPIRED);
}

/**
 * A condition of an acceptance's or revocation's transaction failed: the invitation (or, for an
 * acceptance, the account) changed between our read and our write. The request is evaluated again
 * from fresh reads, which gives the precise answer (again while it keeps losing races: `onContention`).
 */
export const INVITATION_CHANGED = concurrentChange();
export const retryIfStale = <T>(attempt: () => Promise<T>): Promise<T> => onContention(attempt, (err) => err === INVITATION_CHANGED || err === CASCADE_STALE);

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

/** A fresh link: the token (for the mail only) and the writes that make it valid until `expires`. */
function linkSteps(invite: Invitation, expires: Date): { token: string; tokenHash: string; steps: TransactStep[] } {
  const token = newSecret(); // 256 bits
  const tokenHash = sha256(token);
  const link: InvitationLinkItem = { project_id: invite.project_id, invite_id: invite.id, invited_email: invite.invited_email };
  const steps: TransactStep[] = [
    putNewStep({ ...keys.inviteToken(tokenHash), type: 'invite_token', ...link, expires_at_epoch: epochSeconds(expires) + KEEP_LINK_DAYS * 86_400 }),
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
export const closeIndexStep = (invite: Pick<Invitation, 'invited_email' | 'id'>): TransactStep => deleteStep(keys.invitedEmail(invite.invited_email, invite.id));

/**
 * Invitation mail abuse: every invitation and resend sends a mail to an address the caller chose, so
 * each counts in four windows (429 with Retry-After once one is full), narrowest first: the
 * invitation's own minute and hour (one mail a minute and a few an hour reach its recipient; the
 * creation is its first), the inviter's hour across all their projects, then the project's, whoever
 * its owners are. Checked after authorization and validation, before anything is written. A refused
 * request does not count in the window that refused it nor in the wider ones after it, so a burst of
 * resends of one invitation costs the inviter and the project one mail, not the burst.
 */
async function limitInvitationMail(ctx: AppContext, invite: { id: string; project_id: string }, inviterId: string): Promise<void> {
  const c = ctx.config;
  await enforceRateLimit(`invitations#invite#${invite.id}#minute`, c.INVITATION_RATE_LIMIT_PER_INVITATION_PER_MINUTE, 60, ctx, INVITATION_SENT_RECENTLY);
  await enforceRateLimit(`invitations#invite#${invite.id}#hour`, c.INVITATION_RATE_LIMIT_PER_INVITATION_PER_HOUR, 3600, ctx, INVITATION_SENT_RECENTLY);
  await enforceRateLimit(`invitations#inviter#${inviterId}`, c.INVITATION_RATE_LIMIT_PER_INVITER_PER_HOUR, 3600, ctx);
  await enforceRateLimit(`invitations#project#${invite.project_id}`, c.INVITATION_RATE_LIMIT_PER_PROJECT_PER_HOUR, 3600, ctx);
}

const validUntil = (ctx: AppContext) => new Date(ctx.clock.now().getTime() + INVITATION_VALID_HOURS * 3_600_000);

/**
 * The environment, group and subgroup an invitation names must be live and nested in one another
 * (400 otherwise); they were read with the caller's access, in the same BatchGet. A subgroup alone
 * implies its group, which is recorded too.
 */
function checkScope(access: ProjectAccess, input: NewInvitation): { group_id: string | null; subgroup_id: string | null } {
  const projectId = access.project.id;
  const envId = input.environment_id;
  if (!envId) return { group_id: null, subgroup_id: null }; // the schema requires an environment with a group or subgroup
  const item = (key: { PK: string; SK: string }) => access.extra.get(keyId(key));
  if (!isLive(item(keys.environment(projectId, envId)))) throw invalid(ENV_NOT_IN_PROJECT);
  if (input.group_id && !isLive(item(keys.group(projectId, envId, input.group_id)))) throw invalid(GROUP_NOT_IN_ENV);
  if (!input.subgroup_id) return { group_id: input.group_id ?? null, subgroup_id: null };
  const subgroup = subgroupEntity.decodeFound(item(keys.subgroup(projectId, envId, input.subgroup_id)));
  if (!isLive(subgroup) || (input.group_id && subgroup!.group_id !== input.group_id)) throw invalid(SUBGROUP_NOT_IN_GROUP);
  return { group_id: subgroup!.group_id, subgroup_id: input.subgroup_id };
}

/** What an audit entry records of an invitation: what its owner reads of it (never its link's token hash). */
const auditedInvitation = ({ token_hash: _t, audit_head: _h, updated_at: _u, ...shown }: Invitation) => shown;

function scopeKeys(projectId: string, input: NewInvitation) {
  const envId = input.environment_id;
  if (!envId) return [];
  return [
    keys.environment(projectId, envId),
    ...(input.group_id ? [keys.group(projectId, envId, input.group_id)] : []),
    ...(input.subgroup_id ? [keys.subgroup(projectId, envId, input.subgroup_id)] : []),
  ];
}

/**
 * POST /invites: invites an address into a project (owner only). Writes the invitation, its link,
 * the open-invitation index and the bare-id lookup in one transaction — nothing on the invited
 * account — with `user.invited` and the invitation's mail in its outbox.
 */
export async function createInvitation(ctx: AppContext, input: NewInvitation): Promise<Invitation> {
  const caller = actorAccount(ctx);
  const access = await loadAccess(input.project_id, caller.id, { extra: scopeKeys(input.project_id, input) });
  access.requireOwner();
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
function invitationMailStep(invite: Invitation, token: string, project: Project, inviter: Account, ctx: AppContext): TransactStep {
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
  access.requireOwner();
  const invites = (await queryPrefix(input.project_id, keys.invitePrefix)).map(invitationEntity.decode);
  return invites.sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
}

/** The invitation with this id as its owner sees it. SPEC order: 404 when absent or the caller is no member, then 403. */
async function ownerAccessToInvitation(ctx: AppContext, inviteId: string) {
  const { access, item: invite } = await accessToItem({ decode: invitationEntity.decode, kind: 'invite', id: inviteId, userId: actorAccount(ctx).id, scope: 'project', notFound: notFound(INVITATION_NOT_FOUND) });
  access.requireOwner();
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
export const resendInvitation = (...args: Parameters<typeof resendInvitationOnce>) => retryWhenStale(() => resendInvitationOnce(...args));

async function resendInvitationOnce(ctx: AppContext, input: { id: string }): Promise<Invitation> {
  const { access, invite } = await ownerAccessToInvitation(ctx, input.id);
  if (invite.accepted) throw invalid(INVITATION_ACCEPTED);
  const caller = actorAccount(ctx);
  await limitInvitationMail(ctx, invite, caller.id);
  const now = ctx.clock.now().toISOString();
  const expires = validUntil(ctx);
  const link = linkSteps(invite, expires);
  const resent: Invitation = { ...invite, token_hash: link.tokenHash, expires_at: expires.toISOString(), revoked_at: null, updated_at: now };
  const audit = changeAudit(ctx, 'invitation', 'resend', invite, { before: auditedInvitation(invite), after: auditedInvitation(resent) }, await retentionOfProject(access.project));
  await transact([
    setFieldsStep(
      keys.invite(invite.project_id, invite.id),
      { token_hash: resent.token_hash, expires_at: resent.expires_at, revoked_at: null, updated_at: now, audit_head: audit.head },
      invalid(INVITATION_ACCEPTED), NOT_ACCEPTED,
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
    const audit = changeAudit(ctx, 'invitation', 'revoke', invite, { before: auditedInvitation(invite), after: auditedInvitation(revoked) }, await retentionOfProject(access.project));
    await transact([
      setFieldsStep(
        keys.invite(invite.project_id, invite.id),
        { expires_at: now, revoked_at: now, updated_at: now, audit_head: audit.head },
        INVITATION_CHANGED, allOf(NOT_ACCEPTED, { expression: 'expires_at = :was', values: { ':was': invite.expires_at } }),
      ),
      closeIndexStep(invite),
      ...audit.steps,
    ]);
  });
}

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
  return open.some((o) => {
    return isLive(projects.get(keyId(keys.project(o.project_id))));
  });
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
export async function findInvitationLink(token: string): Promise<(InvitationLinkItem & { tokenHash: string }) | undefined> {
  const tokenHash = sha256(token);
  const link = await getItem<InvitationLinkItem>(keys.inviteToken(tokenHash));
  return link ? { ...link, tokenHash } : undefined;
}
