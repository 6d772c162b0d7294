import { hashPassword } from '#auth/passwords';
import { passwordPolicyProblem } from '#auth/password-policy';
import { transact, type TransactStep } from '#db/transact';
import { invalid, forbidden } from '#shared/errors';
import type { AppContext } from '#shared/context';
import { securityLogStep, type SecurityActor } from './security-log.ts';
import { accountCreationSteps, buildAccount, normalizeEmail, type Account, type NewAccount } from './accounts.ts';

export const REGISTRATION_DISABLED = 'Registration is disabled';
export const REGISTRATION_INVITE_ONLY = 'Registration is by invitation only';
export const DOMAIN_NOT_ALLOWED = 'Registration is not allowed for this email domain';

/**
 * Writes another context adds to an account's creation transaction (billing: a customer's Free
 * subscription). Identity knows no plans; the caller composes them.
 */
export type AlongsideAccount = (account: Account, ctx: AppContext) => TransactStep[];
const nothingAlongside: AlongsideAccount = () => [];

/** Self-service sign-up: the policy from configuration, then the account and whatever goes `alongside` in one transaction. */
export async function register(
  ctx: AppContext,
  input: { email: string; password: string; name?: string | null; phone?: string | null },
  alongside: AlongsideAccount = nothingAlongside,
): Promise<Account> {
  const { REGISTRATION_MODE, REGISTRATION_EMAIL_DOMAINS } = ctx.config;
  if (REGISTRATION_MODE === 'disabled') throw forbidden(REGISTRATION_DISABLED);
  if (REGISTRATION_MODE === 'invite-only') throw forbidden(REGISTRATION_INVITE_ONLY);
  const domain = normalizeEmail(input.email).split('@').pop()!;
  if (REGISTRATION_EMAIL_DOMAINS.length && !REGISTRATION_EMAIL_DOMAINS.includes(domain))
    throw forbidden(DOMAIN_NOT_ALLOWED);
  return createAccount(
    { ...input, account_type: 'customer' },
    input.password,
    ctx,
    withCreationLogged(alongside, 'self'),
  );
}

/** `alongside` plus the new account's first security-log entry, `account.created` (by itself, or by the staff caller). */
export const withCreationLogged =
  (alongside: AlongsideAccount = nothingAlongside, actor?: SecurityActor): AlongsideAccount =>
  (account, ctx) => [
    ...alongside(account, ctx),
    securityLogStep(
      account.id,
      { event: 'account.created', actor, details: { account_type: account.account_type } },
      ctx,
    ),
  ];

/** Creates an account with a password checked against the policy, in one transaction with what goes `alongside`. */
export async function createAccount(
  input: Omit<NewAccount, 'password_hash'>,
  password: string,
  ctx: AppContext,
  alongside: AlongsideAccount = nothingAlongside,
): Promise<Account> {
  const account = await prepareAccount(input, password, ctx);
  await transact([...accountCreationSteps(account), ...alongside(account, ctx)]);
  return account;
}

/**
 * The account to create, its password checked against the policy (400) and hashed; nothing is
 * written, so a caller (invitation acceptance) can put `accountCreationSteps` into its own transaction.
 */
export async function prepareAccount(
  input: Omit<NewAccount, 'password_hash'>,
  password: string,
  ctx: AppContext,
): Promise<Account> {
  const problem = passwordPolicyProblem(password, ctx.config);
  if (problem) throw invalid(problem);
  return buildAccount({ ...input, password_hash: await hashPassword(password) }, ctx);
}
