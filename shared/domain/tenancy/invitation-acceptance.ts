import { keys } from '#db/keys';
import { accountActor, changeAudit } from '#shared/audit';
import { transact, type TransactStep } from '#db/transact';
import { invalid, conflict, notFound } from '#shared/errors';
import { hashPassword } from '#auth/passwords';
import { passwordPolicyProblem } from '#auth/password-policy';
import { actorAccount, type AppContext } from '#shared/context';
import {
  accountCreationSteps,
  type Account,
  type AccountType,
  prepareAccount,
  hasSecondFactor,
  securityLogStep,
  startSession,
  type ClientMeta,
  type TokenPair,
} from '#domain/identity';
import { isOwnerMembership, type Membership } from './access';
import { envRoleStep, type EnvRoleAssignment } from './env-roles';
import { memberHoldsStep } from './role-target';
import { environmentEntity, type Environment } from './environment-entity';
import { locate } from '#db/lookup';
import { membershipSteps } from './projects';
import type { Project } from './project-types';
import { listSubscriptions } from '#domain/billing';
import {
  closeIndexStep,
  DEFAULT_INVITE_ROLE,
  findInvitationLink,
  INVITATION_NOT_FOUND,
  refuseClosed,
  retryIfStale,
  INVITATION_CHANGED as STALE,
  toInviteOut,
  type Invitation,
} from './invitations';
import { batchGet, keyId } from '#db/batch-get';
import { allOf, isLive, type Condition } from '#db/live';
import { isUnset } from '#db/condition';
import { countIs } from '#db/counter-moves';
import { setWhenStep } from '#db/steps';
import { accountEntity } from '#shared/account-entity';
import { projectEntity } from './project-entity';
import { membershipEntity } from './membership-entity';
import { envRoleEntity } from './env-role-entity';
import { invitationEntity } from './invitation-entity';

/** SPEC "Errors: invitations". */
export const ACCOUNT_EXISTS =
  'An account already exists for this address. Sign in as that account and open the invitation link again, or reset your password if you cannot sign in.';
export const PASSWORD_REQUIRED_TO_CLAIM = 'A password is required to claim this invitation';
export const PASSWORD_REQUIRED_TO_CREATE = 'A password is required to create an account for this invitation';

interface Facts {
  project: Project;
  account?: Account;
  membership?: Membership;
  env?: Environment;
  envRole?: EnvRoleAssignment;
}

/** What acceptance needs to know, in one BatchGet. A deleted project's invitation is not found. */
async function acceptanceFacts(invite: Invitation, userId: string | undefined): Promise<Facts> {
  const p = invite.project_id;
  const envId = invite.environment_id;
  const k = {
    project: keys.project(p),
    env: envId ? keys.environment(p, envId) : undefined,
    account: userId ? keys.account(userId) : undefined,
    membership: userId ? keys.member(p, userId) : undefined,
    envRole: userId && envId ? keys.envRole(p, envId, userId) : undefined,
  };
  const items = await batchGet(Object.values(k).filter((x): x is { PK: string; SK: string } => Boolean(x)));
  const get = (key?: { PK: string; SK: string }) => (key ? items.get(keyId(key)) : undefined);
  const project = projectEntity.decodeFound(get(k.project));
  if (!project || !isLive(project)) throw notFound(INVITATION_NOT_FOUND);
  return {
    project,
    account: accountEntity.decodeFound(get(k.account)),
    membership: membershipEntity.decodeFound(get(k.membership)),
    env: environmentEntity.decodeFound(get(k.env)),
    envRole: envRoleEntity.decodeFound(get(k.envRole)),
  };
}

/**
 * Marks the invitation accepted, provided that at commit it is still open in the stored state we
 * accepted from: not accepted, not revoked, not past its stored expiry, and still carrying the same
 * link (the presented token's hash by token; the hash we read by id, so a resend or revoke-and-resend
 * in between is noticed). A revocation committed first therefore wins, whatever this request's clock
 * says; a failed condition re-evaluates from fresh reads (`retryIfStale`), which gives the answer.
 */
function acceptedSteps(
  invite: Invitation,
  account: Account,
  now: string,
  ctx: AppContext,
  tokenHash: string = invite.token_hash,
): TransactStep[] {
  // The acceptance's entry, by the accepting account (signed in or created by it). It is the
  // invitation's last change: kept, like every latest entry; the previous one keeps its own state
  // (the plan's retention is not read on this path).
  const audit = changeAudit(
    ctx,
    'invitation',
    'accept',
    invite,
    {
      before: { accepted: false, accepted_at: null, accepted_by_user_id: null },
      after: { accepted: true, accepted_at: now, accepted_by_user_id: account.id },
    },
    null,
    { actor: accountActor(account) },
  );
  // Still open: not accepted, not revoked, not expired, and the link presented still its own.
  const open = allOf(isUnset('revoked_at'), { expression: 'expires_at > :now', values: { ':now': now } });
  return [
    setWhenStep(
      keys.invite(invite.project_id, invite.id),
      { accepted: true, accepted_at: now, accepted_by_user_id: account.id, updated_at: now, audit_head: audit.head },
      { accepted: false, token_hash: tokenHash },
      STALE,
      open,
    ),
    ...audit.steps,
  ];
}

/**
 * What the invitation grants: the membership (unless the account already is a member) and, when it
 * names a live environment, a role there (default viewer) carrying the invitation's group/subgroup
 * scope. Owners already hold everything, so they get no role.
 */
function grantSteps(invite: Invitation, userId: string, facts: Facts, ctx: AppContext): TransactStep[] {
  const steps: TransactStep[] = [];
  const now = ctx.clock.now().toISOString();
  if (!facts.membership)
    steps.push(...membershipSteps(invite.project_id, userId, 'member', now).map((s) => ({ ...s, failWith: STALE })));
  if (invite.environment_id && isLive(facts.env) && !isOwnerMembership(facts.membership)) {
    const step = envRoleStep(
      invite.project_id,
      invite.environment_id,
      userId,
      invite.role ?? DEFAULT_INVITE_ROLE,
      facts.envRole?.id ?? ctx.ids.newId(),
    );
    step.Put!.Item = {
      ...step.Put!.Item,
      group_id: invite.group_id,
      subgroup_id: invite.subgroup_id,
      invitation_id: invite.id,
    };
    steps.push(step);
    // A member's role is written only while they still are one (a removal committed meanwhile: evaluated again).
    if (facts.membership) steps.push(memberHoldsStep(invite.project_id, userId, STALE));
  }
  return steps;
}

const ownedProjects = (a: Account) => a.owned_project_count ?? 0;

/**
 * SPEC "Account class" on acceptance: a customer becomes a project_user exactly when it owns no
 * (non-deleted) project and has no subscription with status 'active'; every other class stays.
 * Owned projects are the account's `owned_project_count`, the same count the project limit uses.
 */
async function classAfterAcceptance(account: Account): Promise<AccountType> {
  if (account.account_type !== 'customer' || ownedProjects(account) > 0) return account.account_type;
  const subscriptions = await listSubscriptions(account.id);
  return subscriptions.some((s) => s.status === 'active') ? 'customer' : 'project_user';
}

interface AccountChanges {
  account_type?: AccountType;
  /** Claiming (case 3): the new password, the login it records, a name when the account has none. */
  claim?: { password_hash: string; last_login_at: string; name: string | null };
}

/** One update of the account item (a transaction touches an item once), guarded so a change made meanwhile is noticed. */
function accountStep(account: Account, changes: AccountChanges, now: string): TransactStep | undefined {
  const fields: Record<string, unknown> = {};
  const when: Record<string, unknown> = {};
  const counts: Condition[] = [];
  if (changes.account_type && changes.account_type !== account.account_type) {
    // The class as read, and still no owned project.
    Object.assign(fields, { account_type: changes.account_type });
    Object.assign(when, { account_type: account.account_type });
    counts.push(countIs('owned_project_count', 0));
  }
  if (changes.claim) {
    // Never signed in, and no second factor set up meanwhile.
    Object.assign(fields, {
      password_hash: changes.claim.password_hash,
      last_login_at: changes.claim.last_login_at,
      name: changes.claim.name,
    });
    Object.assign(when, { last_login_at: null });
    counts.push(countIs('totp_device_count', 0));
  }
  if (!Object.keys(fields).length) return undefined;
  return setWhenStep(keys.account(account.id), { updated_at: now, ...fields }, when, STALE, allOf(...counts));
}

const acceptedCopy = (invite: Invitation, userId: string, now: string): Invitation => ({
  ...invite,
  accepted: true,
  accepted_at: now,
  accepted_by_user_id: userId,
  updated_at: now,
});

/** Accepts for an existing account: the invitation, the grants and the account class, in one transaction. */
async function acceptForAccount(
  invite: Invitation,
  account: Account,
  facts: Facts,
  ctx: AppContext,
  extra: { tokenHash?: string; claim?: AccountChanges['claim'] } = {},
) {
  const now = ctx.clock.now().toISOString();
  const account_type = await classAfterAcceptance(account);
  const update = accountStep(account, { account_type, claim: extra.claim }, now);
  await transact([
    ...acceptedSteps(invite, account, now, ctx, extra.tokenHash),
    closeIndexStep(invite),
    ...grantSteps(invite, account.id, facts, ctx),
    ...(update ? [update] : []),
    // A claim sets the password and signs the holder of the link in: its security-log entry, with the login it records.
    ...(extra.claim
      ? [
          securityLogStep(
            account.id,
            {
              event: 'sign_in.succeeded',
              actor: 'self',
              details: { second_factor: null, via: 'invitation', password_set: true },
            },
            ctx,
          ),
        ]
      : []),
  ]);
  const updated: Account = { ...account, account_type, ...(extra.claim ?? {}), updated_at: now };
  return { invite: acceptedCopy(invite, account.id, now), account: updated };
}

/**
 * POST /invites/{id}/accept, by the signed-in account: the identity check comes first (an
 * invitation for another address is 'Invitation not found', as an unknown id), then 'already
 * accepted' / 'expired'.
 */
export async function acceptInvitationById(ctx: AppContext, input: { id: string }): Promise<void> {
  const caller = actorAccount(ctx);
  const notFoundError = notFound(INVITATION_NOT_FOUND);
  const { key } = await locate(input.id, 'invite', notFoundError);
  await retryIfStale(async () => {
    const invite = invitationEntity.decodeFound((await batchGet([key])).get(keyId(key)));
    if (!invite || invite.invited_email !== caller.email.toLowerCase()) throw notFoundError;
    refuseClosed(invite, ctx);
    const facts = await acceptanceFacts(invite, caller.id);
    await acceptForAccount(invite, facts.account ?? caller, facts, ctx);
  });
}

export interface AcceptByTokenInput {
  token: string;
  password?: string | null;
  name?: string | null;
  /** The client a session started by the acceptance is recorded for. */
  client: ClientMeta;
}

/** The same context, its clock a millisecond ahead (to order two entries written at one instant). */
const oneMsLater = (ctx: AppContext): AppContext => ({
  ...ctx,
  clock: { ...ctx.clock, now: () => new Date(ctx.clock.now().getTime() + 1) },
});

const fullName = (i: Invitation) => [i.invited_first_name, i.invited_last_name].filter(Boolean).join(' ') || null;

async function hashNewPassword(password: string, ctx: AppContext): Promise<string> {
  const problem = passwordPolicyProblem(password, ctx.config);
  if (problem) throw invalid(problem);
  return hashPassword(password);
}

/** The accepted invitation and, when the acceptance signed the invitee in, their session's tokens. */
export interface Acceptance {
  invite: ReturnType<typeof toInviteOut>;
  session?: TokenPair;
}
const acceptedReply = (invite: Invitation, session?: TokenPair): Acceptance => ({
  invite: toInviteOut(invite),
  session,
});

/**
 * POST /invites/accept/by-token, SPEC's five cases:
 * 1. no account for the address → one is created (project_user, with the given password), signed in;
 * 2. an account that has signed in before → 409 unless the caller is signed in as exactly that
 *    account (then accepted for it; no new session); the password is neither read nor written;
 * 3. an account that never signed in and has no second factor → the password is set, a login recorded, signed in;
 * 4. a missing password in case 1 or 3 → 400;
 * 5. an unknown token → 404, whatever accounts exist.
 * A used link answers 'Invitation already accepted'; a revoked, expired or replaced one 'Invitation expired'.
 * The route is public: `ctx.actor` is the caller when a usable token was sent, else null.
 */
export async function acceptInvitationByToken(ctx: AppContext, input: AcceptByTokenInput): Promise<Acceptance> {
  const caller = ctx.actor;
  const meta = input.client;
  const link = await findInvitationLink(input.token);
  if (!link) throw notFound(INVITATION_NOT_FOUND);
  const { tokenHash } = link;
  const password = input.password || undefined;
  return retryIfStale(async () => {
    const inviteKey = keys.invite(link.project_id, link.invite_id);
    const emailKey = keys.email(link.invited_email);
    const found = await batchGet([inviteKey, emailKey]);
    const invite = invitationEntity.decodeFound(found.get(keyId(inviteKey)));
    if (!invite) throw notFound(INVITATION_NOT_FOUND);
    refuseClosed(invite, ctx, tokenHash);
    const userId = found.get(keyId(emailKey))?.user_id as string | undefined;
    const facts = await acceptanceFacts(invite, userId);
    const account = facts.account;

    if (!account) {
      // Case 1: a new project_user account, created with the membership in the same transaction.
      if (!password) throw invalid(PASSWORD_REQUIRED_TO_CREATE);
      const now = ctx.clock.now().toISOString();
      const prepared = await prepareAccount(
        { email: invite.invited_email, name: input.name?.trim() || fullName(invite), account_type: 'project_user' },
        password,
        ctx,
      );
      const created: Account = { ...prepared, last_login_at: now };
      await transact([
        ...acceptedSteps(invite, created, now, ctx, tokenHash),
        closeIndexStep(invite),
        ...accountCreationSteps(created),
        ...grantSteps(invite, created.id, facts, ctx),
        // The new account's security log: created, then signed in (one millisecond later, so newest first reads in order), by the link's holder.
        securityLogStep(
          created.id,
          {
            event: 'account.created',
            actor: 'self',
            details: { account_type: created.account_type, via: 'invitation' },
          },
          ctx,
        ),
        securityLogStep(
          created.id,
          { event: 'sign_in.succeeded', actor: 'self', details: { second_factor: null, via: 'invitation' } },
          oneMsLater(ctx),
        ),
      ]);
      return acceptedReply(acceptedCopy(invite, created.id, now), await startSession(created, meta, ctx));
    }
    if (caller && caller.account.id === account.id) {
      // Case 2, signed in as exactly the invited account.
      return acceptedReply((await acceptForAccount(invite, account, facts, ctx, { tokenHash })).invite);
    }
    if (account.is_active && !account.last_login_at && !hasSecondFactor(account)) {
      // Case 3: the never-used account is claimed by whoever holds the mailbox.
      if (!password) throw invalid(PASSWORD_REQUIRED_TO_CLAIM);
      const claim = {
        password_hash: await hashNewPassword(password, ctx),
        last_login_at: ctx.clock.now().toISOString(),
        name: account.name ?? (input.name?.trim() || fullName(invite)),
      };
      const accepted = await acceptForAccount(invite, account, facts, ctx, { tokenHash, claim });
      return acceptedReply(accepted.invite, await startSession(accepted.account, meta, ctx));
    }
    throw conflict(ACCOUNT_EXISTS);
  });
}
