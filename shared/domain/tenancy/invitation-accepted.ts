/**
 * The writes of an acceptance: the invitation marked accepted while it is still open, and an existing
 * account's acceptance in one transaction (grants, the account's class, a claim's password and login).
 */
import { keys } from '#db/keys';
import { accountActor, changeAudit } from '#shared/audit';
import { transact, type TransactStep } from '#db/transact';
import type { AppContext } from '#shared/context';
import { type Account, type AccountType, securityLogStep } from '#domain/identity';
import { listSubscriptions } from '#domain/billing';
import { INVITATION_CHANGED as STALE, type Invitation } from './invitation-state.ts';
import { closeIndexStep } from './invitation-links.ts';
import { allOf, type Condition } from '#db/live';
import { isUnset } from '#db/condition';
import { countIs } from '#db/counter-moves';
import { setWhenStep } from '#db/steps';
import { type Facts, grantSteps } from './invitation-grants.ts';

/**
 * Marks the invitation accepted, provided that at commit it is still open in the stored state we
 * accepted from: not accepted, not revoked, not past its stored expiry, and still carrying the same
 * link (the presented token's hash by token; the hash we read by id, so a resend or revoke-and-resend
 * in between is noticed). A revocation committed first therefore wins, whatever this request's clock
 * says; a failed condition re-evaluates from fresh reads (`retryIfStale`), which gives the answer.
 */
export function acceptedSteps(
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

export const acceptedCopy = (invite: Invitation, userId: string, now: string): Invitation => ({
  ...invite,
  accepted: true,
  accepted_at: now,
  accepted_by_user_id: userId,
  updated_at: now,
});

/** Accepts for an existing account: the invitation, the grants and the account class, in one transaction. */
export async function acceptForAccount(
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
