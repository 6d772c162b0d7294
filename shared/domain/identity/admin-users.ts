import { keys } from '#db/keys';
import { transact } from '#db/transact';
import { IF_EXISTS, setExpression } from '#db/steps';
import { forbidden, invalid, notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { canCreateProjects, getAccount, toAccountOut, type Account, type AccountType } from './accounts.ts';
import { createAccount, withCreationLogged, type AlongsideAccount } from './registration.ts';
import { hasSecondFactor } from './second-factor.ts';
import { revokeAccountSessions } from './account-sessions.ts';
import { queryAll } from '#db/query';
import { accountEntity } from '#shared/account-entity';
import { securityLogPage, securityLogStep, type SecurityLogPage } from './security-log.ts';

export const USER_NOT_FOUND = 'User not found';
export const CANNOT_BLOCK_SELF = 'You cannot deactivate your own account';
export const CANNOT_UNSTAFF_SELF = 'You cannot remove your own staff privileges';
export const SUPERUSER_ONLY_TARGET = 'Only a superuser can change a superuser account';
export const SUPERUSER_ONLY_STAFF_GRANT = 'Only a superuser can grant or remove staff privileges';

/** Whether a change or a new account touches staff standing: the staff flag, the staff class, an admin role. */
const touchesStaffStanding = (
  change: { is_staff?: boolean; account_type?: AccountType; admin_role?: string | null },
  before?: Account,
) =>
  change.is_staff !== undefined ||
  change.admin_role !== undefined ||
  (change.account_type !== undefined && (change.account_type === 'staff' || before?.account_type === 'staff'));

/**
 * Staff below superuser administer ordinary accounts only: they may not change a superuser account
 * (any field, even an empty patch), nor grant, change or remove staff standing on any account, nor
 * create a staff account. A superuser may do all of it. (`is_superuser` itself is set by no route.)
 */
function requireSuperuserFor(
  ctx: AppContext,
  change: { is_staff?: boolean; account_type?: AccountType; admin_role?: string | null },
  target?: Account,
): void {
  if (actorAccount(ctx).is_superuser) return;
  if (target?.is_superuser) throw forbidden(SUPERUSER_ONLY_TARGET);
  if (touchesStaffStanding(change, target)) throw forbidden(SUPERUSER_ONLY_STAFF_GRANT);
}

/** What staff see of an account: the user object plus the internal attributes that drive behaviour. */
export function toAdminUserOut(a: Account) {
  return {
    ...toAccountOut(a),
    is_active: a.is_active,
    account_type: a.account_type,
    can_create_projects: canCreateProjects(a),
    mfa_enabled: hasSecondFactor(a),
    last_login_at: a.last_login_at,
    created_at: a.created_at,
  };
}

/** Every account, ordered by e-mail, from the GSI1 `ACCOUNTS` partition (no Scan). Staff only (the route's level). */
export async function listAccounts(_ctx: AppContext): Promise<Account[]> {
  const accounts = await queryAll({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': keys.accountsIndex('').GSI1PK },
  });
  return accounts.map(accountEntity.decode);
}

async function accountOrNotFound(userId: string): Promise<Account> {
  const account = await getAccount(userId);
  if (!account) throw notFound(USER_NOT_FOUND);
  return account;
}

/** One account, as staff see it (the route's level); 404 when there is none. */
export const getAccountForStaff = (_ctx: AppContext, input: { user_id: string }): Promise<Account> =>
  accountOrNotFound(input.user_id);

export interface AdminAccountPatch {
  is_active?: boolean;
  account_type?: AccountType;
  is_staff?: boolean;
  admin_role?: string | null;
}

/**
 * Staff (the caller) change an account's standing. Blocking (is_active → false) also bumps the token
 * version and revokes every session: the account is shut out at once, and unblocking later does not
 * bring old sessions back. Staff cannot block themselves or drop their own staff flag (no self-lockout).
 */
export async function updateAccountAsStaff(
  ctx: AppContext,
  input: { user_id: string } & AdminAccountPatch,
): Promise<Account> {
  const { user_id: userId, ...patch } = input;
  const actor = actorAccount(ctx);
  if (userId === actor.id && patch.is_active === false) throw invalid(CANNOT_BLOCK_SELF);
  if (userId === actor.id && patch.is_staff === false) throw invalid(CANNOT_UNSTAFF_SELF);
  const before = await accountOrNotFound(userId);
  requireSuperuserFor(ctx, patch, before);
  const blocking = patch.is_active === false && before.is_active;
  const { is_active, account_type, is_staff, admin_role } = patch;
  // The change and its entry in the account's security log, in one transaction.
  const changed = Object.fromEntries(
    Object.entries({ is_active, account_type, is_staff, admin_role }).filter(
      ([k, v]) => v !== undefined && v !== before[k as keyof Account],
    ),
  );
  const fields = { is_active, account_type, is_staff, admin_role, updated_at: ctx.clock.now().toISOString() };
  await transact([
    {
      Update: {
        Key: keys.account(userId),
        ...setExpression(fields, blocking ? { token_version: 1 } : {}),
        ...IF_EXISTS,
      },
      failWith: notFound(USER_NOT_FOUND),
    },
    securityLogStep(
      userId,
      { event: 'account.updated_by_staff', details: { ...changed, sessions_revoked: blocking } },
      ctx,
    ),
  ]);
  if (blocking) await revokeAccountSessions(userId, ctx);
  // The account as written: what was read, with the fields this update set (no second read).
  const set = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  return { ...before, ...set, ...(blocking ? { token_version: before.token_version + 1 } : {}) } as Account;
}

export interface StaffCreatedAccount {
  email: string;
  password: string;
  name?: string | null;
  phone?: string | null;
  account_type?: AccountType;
  is_staff?: boolean;
  admin_role?: string | null;
}

/**
 * POST /users: staff (the caller, at the route's level) create an account directly (no registration
 * policy; the password policy still holds), with whatever the route composes `alongside`.
 */
export function createAccountAsStaff(
  ctx: AppContext,
  input: StaffCreatedAccount,
  alongside?: AlongsideAccount,
): Promise<Account> {
  const { password, ...rest } = input;
  // a new account is staff when it says so in any way; `is_staff: false` and no admin role is an ordinary account
  requireSuperuserFor(ctx, {
    is_staff: rest.is_staff || undefined,
    account_type: rest.account_type,
    admin_role: rest.admin_role ?? undefined,
  });
  return createAccount(
    { ...rest, account_type: rest.account_type ?? 'customer' },
    password,
    ctx,
    withCreationLogged(alongside),
  );
}

/** Any account's security log, for staff (the route's level), newest first; 404 'User not found' for an unknown account. */
export async function listSecurityLogForStaff(_ctx: AppContext, input: { user_id: string } & SecurityLogPage) {
  const account = await accountOrNotFound(input.user_id);
  return securityLogPage(account.id, input);
}
