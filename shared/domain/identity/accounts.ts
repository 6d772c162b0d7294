import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { keys } from '#db/keys';
import { transact, type TransactStep } from '#db/transact';
import { badRequest } from '#http/errors';
import type { AppContext } from '#shared/context';

export type AccountType = 'customer' | 'project_user' | 'staff';

/** The account as stored. Only `toAccountOut` decides what a client sees. */
export interface Account {
  id: string;
  email: string;
  name: string | null;
  phone: string | null;
  is_superuser: boolean;
  is_staff: boolean;
  admin_role: string | null;
  preferred_language: string | null;
  navigation_mode: string | null;
  job_title: string | null;
  timezone: string | null;
  table_density: string | null;
  is_active: boolean;
  account_type: AccountType;
  last_login_at: string | null;
  token_version: number;
  password_hash: string;
  created_at: string;
  updated_at: string;
}

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
/** The same refusal for a missing and a blocked account (SPEC), wherever a token or session is checked. */
export const USER_NOT_FOUND_OR_INACTIVE = 'User not found or inactive';

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
  const now = ctx.now().toISOString();
  return {
    id: ctx.newId(),
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
  const TableName = config().TABLE_NAME;
  return [
    {
      Put: {
        TableName,
        Item: { ...keys.email(account.email), user_id: account.id },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
      failWith: badRequest(EMAIL_TAKEN),
    },
    {
      Put: {
        TableName,
        Item: { ...keys.account(account.id), ...keys.accountsIndex(account.email), type: 'account', ...account },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  ];
}

export async function getAccount(userId: string): Promise<Account | undefined> {
  const out = await ddb().send(new GetCommand({ TableName: config().TABLE_NAME, Key: keys.account(userId), ConsistentRead: true }));
  return out.Item as Account | undefined;
}

export async function findAccountByEmail(email: string): Promise<Account | undefined> {
  const TableName = config().TABLE_NAME;
  const sentinel = await ddb().send(new GetCommand({ TableName, Key: keys.email(normalizeEmail(email)), ConsistentRead: true }));
  const userId = sentinel.Item?.user_id as string | undefined;
  return userId ? getAccount(userId) : undefined;
}

export type ProfilePatch = Partial<
  Pick<Account, 'email' | 'name' | 'phone' | 'preferred_language' | 'navigation_mode' | 'job_title' | 'timezone' | 'table_density'>
>;

/** Updates profile fields; an e-mail change moves the uniqueness sentinel in the same transaction. */
export async function updateProfile(account: Account, patch: ProfilePatch, ctx: AppContext): Promise<Account> {
  const TableName = config().TABLE_NAME;
  const next: Account = { ...account, ...patch, updated_at: ctx.now().toISOString() };
  if (patch.email !== undefined) next.email = normalizeEmail(patch.email);
  const fields = Object.keys(patch).filter((k) => k !== 'email') as (keyof ProfilePatch)[];
  const names: Record<string, string> = { '#u': 'updated_at' };
  const values: Record<string, unknown> = { ':u': next.updated_at };
  const sets = ['#u = :u'];
  for (const f of fields) {
    names[`#${f}`] = f;
    values[`:${f}`] = next[f];
    sets.push(`#${f} = :${f}`);
  }
  const emailChanged = next.email !== account.email;
  if (emailChanged) {
    names['#e'] = 'email';
    names['#g'] = 'GSI1SK';
    values[':e'] = next.email;
    sets.push('#e = :e', '#g = :e');
  }
  const update = {
    TableName,
    Key: keys.account(account.id),
    UpdateExpression: `SET ${sets.join(', ')}`,
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
  if (!emailChanged) {
    await ddb().send(new UpdateCommand(update));
    return next;
  }
  await transact([
    {
      Put: { TableName, Item: { ...keys.email(next.email), user_id: account.id }, ConditionExpression: 'attribute_not_exists(PK)' },
      failWith: badRequest(EMAIL_TAKEN),
    },
    { Delete: { TableName, Key: keys.email(account.email) } },
    { Update: update },
  ]);
  return next;
}

export async function recordLogin(userId: string, ctx: AppContext): Promise<void> {
  await ddb().send(
    new UpdateCommand({
      TableName: config().TABLE_NAME,
      Key: keys.account(userId),
      UpdateExpression: 'SET last_login_at = :t',
      ExpressionAttributeValues: { ':t': ctx.now().toISOString() },
    }),
  );
}
