/**
 * Accepting an invitation, by id (the signed-in invitee) or by its link's token (SPEC's five cases).
 * What it reads and grants: invitation-grants.ts; its writes: invitation-accepted.ts.
 */
import { keys } from '#db/keys';
import { transact } from '#db/transact';
import { invalid, conflict, notFound } from '#shared/errors';
import { hashPassword } from '#auth/passwords';
import { passwordPolicyProblem } from '#auth/password-policy';
import { actorAccount, type AppContext } from '#shared/context';
import {
  accountCreationSteps,
  type Account,
  prepareAccount,
  hasSecondFactor,
  securityLogStep,
  startSession,
  type ClientMeta,
  type TokenPair,
} from '#domain/identity';
import { locate } from '#db/lookup';
import { INVITATION_NOT_FOUND, refuseClosed, retryIfStale, toInviteOut, type Invitation } from './invitation-state.ts';
import { closeIndexStep, findInvitationLink } from './invitation-links.ts';
import { batchGet, keyId, snapshotGet } from '#db/batch-get';
import { invitationEntity } from './invitation-entity.ts';
import { acceptanceFacts, grantSteps } from './invitation-grants.ts';
import { acceptedCopy, acceptedSteps, acceptForAccount } from './invitation-accepted.ts';

/** SPEC "Errors: invitations". */
export const ACCOUNT_EXISTS =
  'An account already exists for this address. Sign in as that account and open the invitation link again, or reset your password if you cannot sign in.';
export const PASSWORD_REQUIRED_TO_CLAIM = 'A password is required to claim this invitation';
export const PASSWORD_REQUIRED_TO_CREATE = 'A password is required to create an account for this invitation';

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
    // Read together: the loser of two uses of one link must not see the winner's account without its acceptance.
    const found = await snapshotGet([inviteKey, emailKey]);
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
