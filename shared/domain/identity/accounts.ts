import { keys } from '#db/keys';
import { transact, type TransactStep } from '#db/transact';
import { getItem, updateItem } from '#db/items';
import { putNewStep, setExpression } from '#db/steps';
import { invalid } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import type { Account, AccountType } from '#shared/actor';
import { accountEntity } from '#shared/account-entity';

export type { Account, AccountType } from '#shared/actor';

/** The documented user object: exactly these fields, nothing internal. */
export function toAccountOut(a: Account) {
  return {
    id: a.id,
    email: a.email,
    name: a.name,
    phone: a.phone,
    is_superuser: a.is_superuser,
    is_staff: a.is_staff,
    admin_role: a.admin_role,
    preferred_language: a.preferred_language,
    navigation_mode: a.navigation_mode,
    job_title: a.job_title,
    timezone: a.timezone,
    table_density: a.table_density,
  };
}

/** Derived on read, never stored: only customers may create projects. */
export const canCreateProjects = (a: Pick<Account, 'account_type'>) => a.account_type === 'customer';

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export const EMAIL_TAKEN = 'Email already registered';

export interface NewAccount {
  email: string;
  password_hash: string;
  name?: string | null;
  phone?: string | null;
  account_type?: AccountType;
  is_staff?: boolean;
  is_superuser?: boolean;
  admin_role?: string | null;
}

export function buildAccount(input: NewAccount, ctx: AppContext): Account {
  const now = ctx.clock.now().toISOString();
  return {
    id: ctx.ids.newId(),
    email: normalizeEmail(input.email),
    name: input.name ?? null,
    phone: input.phone ?? null,
    is_superuser: input.is_superuser ?? false,
    is_staff: input.is_staff ?? false,
    admin_role: input.admin_role ?? null,
    preferred_language: null,
    navigation_mode: null,
    job_title: null,
    timezone: null,
    table_density: null,
    is_active: true,
    account_type: input.account_type ?? 'customer',
    last_login_at: null,
    token_version: 0,
    password_hash: input.password_hash,
    created_at: now,
    updated_at: now,
  };
}

/** The writes that create an account: the e-mail sentinel (uniqueness) and the account row. */
export function accountCreationSteps(account: Account): TransactStep[] {
  return [
    putNewStep({ ...keys.email(account.email), user_id: account.id }, invalid(EMAIL_TAKEN)),
    putNewStep({ ...keys.account(account.id), ...keys.accountsIndex(account.email), type: 'account', ...account }),
  ];
}

export const getAccount = async (userId: string): Promise<Account | undefined> =>
  accountEntity.decodeFound(await getItem(keys.account(userId)));

export async function findAccountByEmail(email: string): Promise<Account | undefined> {
  const sentinel = await getItem<{ user_id: string }>(keys.email(normalizeEmail(email)));
  return sentinel ? getAccount(sentinel.user_id) : undefined;
}

/** The signed-in caller's account (as re-read for this request). */
export const currentAccount = (ctx: AppContext): Account => actorAccount(ctx);

/** Records a sign-in on the account (last login), with `alongside` writes (its security-log entry) in the same transaction. */
export async function recordLogin(userId: string, ctx: AppContext, alongside: TransactStep[] = []): Promise<void> {
  const update = setExpression({ last_login_at: ctx.clock.now().toISOString() });
  if (!alongside.length) return void (await updateItem(keys.account(userId), update));
  await transact([{ Update: { Key: keys.account(userId), ...update } }, ...alongside]);
}
