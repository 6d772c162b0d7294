import { keys } from '#db/keys';
import { transact } from '#db/transact';
import { IF_EXISTS, deleteStep, setExpression } from '#db/steps';
import { invalid, notFound } from '#shared/errors';
import { hashPassword } from '#auth/passwords';
import { passwordPolicyProblem } from '#auth/password-policy';
import { mailStep } from '#mail/send';
import type { MailMessage } from '#mail/mailer';
import type { AppContext } from '#shared/context';
import { appLink, newLinkToken, readLinkToken, type LinkTokenRecord } from './link-token.ts';
import { findAccountByEmail, getAccount, normalizeEmail } from './accounts.ts';
import { hasSecondFactor, verifySecondFactor } from './second-factor.ts';
import { revokeAccountSessions } from './account-sessions.ts';
import type { ClientMeta } from './sessions.ts';
import { perAddressPerMinute } from './rate-limit.ts';
import { escapeHtml } from '#mail/html';
import { recordSecurityEvent, securityLogStep } from './security-log.ts';

/** SPEC "Other constants": a reset link is valid for 60 minutes. */
export const RESET_LINK_VALID_MINUTES = 60;
export const RESET_TOKEN_REQUIRED = 'Reset token is required';
export const RESET_TOKEN_NOT_FOUND = 'Reset token not found';
export const RESET_TOKEN_USED = 'Reset token has already been used';
export const RESET_TOKEN_EXPIRED = 'Reset token has expired';

interface PasswordResetToken extends LinkTokenRecord {
  user_id: string;
}
const RESET_REFUSALS = {
  required: RESET_TOKEN_REQUIRED,
  notFound: RESET_TOKEN_NOT_FOUND,
  used: RESET_TOKEN_USED,
  expired: RESET_TOKEN_EXPIRED,
};

export interface PasswordResetRequest {
  email: string;
  totp_code?: string | null;
  /** Where the request comes from: rate-limited per source address. */
  client: ClientMeta;
}

/**
 * Asks for a reset link. Past the source address's rate limit, 429. Otherwise, whatever happens —
 * unknown or blocked address, missing or wrong second factor, mail sent — the caller gets the same
 * answer, so the body does not tell whether the address has an account. Nor does the timing: the
 * route declares `minDurationMs` (PASSWORD_RESET_MIN_DURATION_MS), which the HTTP pipeline applies
 * to every answer of the route, the 422 and the 429 included.
 */
export async function requestPasswordReset(ctx: AppContext, input: PasswordResetRequest): Promise<void> {
  await perAddressPerMinute(
    'password-reset',
    input.client.sourceIp,
    ctx.config.PASSWORD_RESET_RATE_LIMIT_PER_MINUTE,
    ctx,
  );
  await sendResetLink(input, ctx);
}

async function sendResetLink(input: PasswordResetRequest, ctx: AppContext): Promise<void> {
  const account = await findAccountByEmail(input.email);
  if (!account?.is_active) return;
  // With an authenticator, a mailbox alone does not reset the password: a valid second factor must come too.
  if (hasSecondFactor(account)) {
    const code = input.totp_code?.trim();
    if (!code || !(await verifySecondFactor(account, code, ctx))) {
      // the account's log tells its holder that someone without the second factor asked (the requester learns nothing: same answer)
      await recordSecurityEvent(
        account.id,
        {
          event: 'password_reset.requested',
          reason: code ? 'totp_invalid' : 'totp_required',
          actor: 'anonymous',
          details: { link_sent: false },
        },
        ctx,
      );
      return;
    }
  }
  const { token, step } = newLinkToken(ctx, {
    keyOf: keys.passwordReset,
    type: 'password_reset',
    validMinutes: RESET_LINK_VALID_MINUTES,
    record: { user_id: account.id },
  });
  // The link, its mail and the account's log entry in one transaction: a mail-queue outage delays the mail, never loses it.
  await transact([
    step,
    mailStep(resetMail(account.email, resetLink(token, ctx)), ctx),
    securityLogStep(
      account.id,
      { event: 'password_reset.requested', actor: 'anonymous', details: { link_sent: true } },
      ctx,
    ),
  ]);
}

export const resetLink = (token: string, ctx: AppContext) => appLink(ctx, 'reset-password', token);

function resetMail(to: string, link: string): MailMessage {
  const text = [
    'Someone asked to reset the password of your Infrastructure Catalog account.',
    '',
    `Open this link within ${RESET_LINK_VALID_MINUTES} minutes to choose a new password:`,
    link,
    '',
    'The link works once. If you did not ask for it, ignore this message: your password stays as it is.',
  ].join('\n');
  const html = [
    '<p>Someone asked to reset the password of your Infrastructure Catalog account.</p>',
    `<p><a href="${escapeHtml(link)}">Choose a new password</a> (the link is valid for ${RESET_LINK_VALID_MINUTES} minutes and works once).</p>`,
    `<p>If the button does not work, paste this address into your browser:<br>${escapeHtml(link)}</p>`,
    '<p>If you did not ask for this, ignore this message: your password stays as it is.</p>',
  ].join('\n');
  return { to, subject: 'Reset your Infrastructure Catalog password', text, html };
}

/**
 * Sets a new password with a reset token. The token is claimed, the password replaced, the token
 * version bumped (every access token dies) and the failed-login count cleared in one transaction:
 * of two concurrent uses exactly one succeeds. Every session is then revoked; a session that
 * escaped deletion cannot refresh either, because its token version is stale.
 */
export async function confirmPasswordReset(
  ctx: AppContext,
  input: { token: string; new_password: string },
): Promise<void> {
  if (!input.token.trim()) throw invalid(RESET_TOKEN_REQUIRED);
  const problem = passwordPolicyProblem(input.new_password, ctx.config);
  if (problem) throw invalid(problem);
  const { record, now, spendStep } = await readLinkToken<PasswordResetToken>(ctx, {
    token: input.token,
    keyOf: keys.passwordReset,
    refusals: RESET_REFUSALS,
  });
  const [password_hash, account] = await Promise.all([hashPassword(input.new_password), getAccount(record.user_id)]);
  if (!account) throw notFound(RESET_TOKEN_NOT_FOUND);
  await transact([
    spendStep,
    // The new password, and a new token version: every access token issued before dies.
    {
      Update: {
        Key: keys.account(record.user_id),
        ...setExpression({ password_hash, updated_at: now }, { token_version: 1 }),
        ...IF_EXISTS,
      },
      failWith: notFound(RESET_TOKEN_NOT_FOUND),
    },
    deleteStep(keys.loginFailures(normalizeEmail(account.email))),
    // the holder of the mailed link is taken for the account holder
    securityLogStep(
      record.user_id,
      { event: 'password_reset.completed', actor: 'self', details: { all_sessions_revoked: true } },
      ctx,
    ),
  ]);
  await revokeAccountSessions(record.user_id, ctx);
}
