import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { keys } from '#db/keys';
import { badRequest, notFound } from '#http/errors';
import type { AppContext } from '#shared/context';
import { canCreateProjects, getAccount, toAccountOut, type Account, type AccountType } from './accounts';
import { createAccount } from './registration';
import { hasSecondFactor } from './second-factor';
import { revokeSessions } from './sessions';
import { queryAll } from '#db/query';

export const USER_NOT_FOUND = 'User not found';
export const CANNOT_BLOCK_SELF = 'You cannot deactivate your own account';
export const CANNOT_UNSTAFF_SELF = 'You cannot remove your own staff privileges';

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

/** Every account, ordered by e-mail, from the GSI1 `ACCOUNTS` partition (no Scan). */
export async function listAccounts(): Promise<Account[]> {
  const accounts = await queryAll<Account>({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': keys.accountsIndex('').GSI1PK },
  });
  return accounts;
}

export async function getAccountForStaff(userId: string): Promise<Account> {
  const account = await getAccount(userId);
  if (!account) throw notFound(USER_NOT_FOUND);
  return account;
}

export interface AdminAccountPatch {
  is_active?: boolean;
  account_type?: AccountType;
  is_staff?: boolean;
  admin_role?: string | null;
}

/**
 * Staff change an account's standing. Blocking (is_active → false) also bumps the token version and
 * revokes every session: the account is shut out at once, and unblocking later does not bring old
 * sessions back. Staff cannot block themselves or drop their own staff flag (no self-lockout).
 */
export async function updateAccountAsStaff(userId: string, patch: AdminAccountPatch, actor: Account, ctx: AppContext): Promise<Account> {
  if (userId === actor.id && patch.is_active === false) throw badRequest(CANNOT_BLOCK_SELF);
  if (userId === actor.id && patch.is_staff === false) throw badRequest(CANNOT_UNSTAFF_SELF);
  const before = await getAccountForStaff(userId);
  const blocking = patch.is_active === false && before.is_active;
  const fields = (['is_active', 'account_type', 'is_staff', 'admin_role'] as const).filter((f) => patch[f] !== undefined);
  const names: Record<string, string> = { '#updated_at': 'updated_at' };
  const values: Record<string, unknown> = { ':now': ctx.now().toISOString() };
  const sets = ['#updated_at = :now'];
  for (const f of fields) {
    names[`#${f}`] = f;
    values[`:${f}`] = patch[f];
    sets.push(`#${f} = :${f}`);
  }
  if (blocking) {
    names['#token_version'] = 'token_version';
    values[':one'] = 1;
    sets.push('#token_version = #token_version + :one');
  }
  let updated: Account;
  try {
    const out = await ddb().send(
      new UpdateCommand({
        TableName: config().TABLE_NAME,
        Key: keys.account(userId),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    updated = out.Attributes as Account;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) throw notFound(USER_NOT_FOUND);
    throw err;
  }
  if (blocking) await revokeSessions(userId, ctx);
  return updated;
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

/** POST /users: staff create an account directly (no registration policy; the password policy still holds). */
export function createAccountAsStaff(input: StaffCreatedAccount, ctx: AppContext): Promise<Account> {
  const { password, ...rest } = input;
  return createAccount({ ...rest, account_type: rest.account_type ?? 'customer' }, password, ctx);
}
