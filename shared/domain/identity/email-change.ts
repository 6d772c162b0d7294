import { keys } from '#db/keys';
import { transact } from '#db/transact';
import { getItem } from '#db/items';
import { deleteWhenStep, putNewStep, setWhenStep } from '#db/steps';
import { invalid } from '#shared/errors';
import { mailStep } from '#mail/send';
import { escapeHtml } from '#mail/html';
import type { MailMessage } from '#mail/mailer';
import type { AppContext } from '#shared/context';
import { appLink, newLinkToken, readLinkToken, type LinkTokenRecord } from './link-token.ts';
import { EMAIL_TAKEN, type Account } from './accounts.ts';
import { securityLogStep } from './security-log.ts';

/** A link to confirm a new address is valid this long (like a password-reset link). */
export const EMAIL_CHANGE_LINK_VALID_MINUTES = 60;

export const EMAIL_CHANGE_TOKEN_REQUIRED = 'E-mail confirmation token is required';
export const EMAIL_CHANGE_TOKEN_NOT_FOUND = 'E-mail confirmation token not found';
export const EMAIL_CHANGE_TOKEN_USED = 'E-mail confirmation token has already been used';
export const EMAIL_CHANGE_TOKEN_EXPIRED = 'E-mail confirmation token has expired';
/** The account's address changed (another confirmation) after this link was sent. */
export const EMAIL_CHANGE_OUTDATED = 'The account e-mail has changed since this link was sent';

interface EmailChangeToken extends LinkTokenRecord {
  user_id: string;
  old_email: string;
  new_email: string;
}
const CONFIRM_REFUSALS = {
  required: EMAIL_CHANGE_TOKEN_REQUIRED,
  notFound: EMAIL_CHANGE_TOKEN_NOT_FOUND,
  used: EMAIL_CHANGE_TOKEN_USED,
  expired: EMAIL_CHANGE_TOKEN_EXPIRED,
};

/** Is the (normalized) address free? Checked when a change is asked (and again, atomically, when it is confirmed). */
export async function ensureEmailFree(email: string): Promise<void> {
  if (await getItem(keys.email(email))) throw invalid(EMAIL_TAKEN);
}

/**
 * Starts an e-mail change the caller has proven it may make (the caller checks): a single-use token,
 * of which only the SHA-256 is stored, is mailed to the new address; the old address is told.
 * Nothing about the account changes until the link is opened.
 */
export async function startEmailChange(account: Account, newEmail: string, ctx: AppContext): Promise<void> {
  const record = { user_id: account.id, old_email: account.email, new_email: newEmail };
  const { token, step } = newLinkToken(ctx, {
    keyOf: keys.emailChange,
    type: 'email_change',
    validMinutes: EMAIL_CHANGE_LINK_VALID_MINUTES,
    record,
  });
  // The link, both mails and the account's log entry in one transaction: a mail-queue outage delays the mails, never loses them.
  await transact([
    step,
    mailStep(confirmationMail(newEmail, confirmEmailLink(token, ctx)), ctx),
    mailStep(noticeMail(account.email, newEmail), ctx),
    securityLogStep(account.id, { event: 'email_change.requested', details: { new_email: newEmail } }, ctx),
  ]);
}

export const confirmEmailLink = (token: string, ctx: AppContext) => appLink(ctx, 'confirm-email', token);

function confirmationMail(to: string, link: string): MailMessage {
  const text = [
    'Someone asked to use this address for their Infrastructure Catalog account.',
    '',
    `Open this link within ${EMAIL_CHANGE_LINK_VALID_MINUTES} minutes to confirm it:`,
    link,
    '',
    'The link works once. If you did not ask for it, ignore this message: nothing changes.',
  ].join('\n');
  const html = [
    '<p>Someone asked to use this address for their Infrastructure Catalog account.</p>',
    `<p><a href="${escapeHtml(link)}">Confirm this address</a> (the link is valid for ${EMAIL_CHANGE_LINK_VALID_MINUTES} minutes and works once).</p>`,
    `<p>If the button does not work, paste this address into your browser:<br>${escapeHtml(link)}</p>`,
    '<p>If you did not ask for this, ignore this message: nothing changes.</p>',
  ].join('\n');
  return { to, subject: 'Confirm your new Infrastructure Catalog e-mail address', text, html };
}

function noticeMail(to: string, newEmail: string): MailMessage {
  const text = [
    `Someone asked to change the e-mail address of your Infrastructure Catalog account to ${newEmail}.`,
    '',
    'The change takes effect only when the link sent to the new address is opened.',
    'If this was not you, change your password now and review your authenticators and sessions.',
  ].join('\n');
  const html = [
    `<p>Someone asked to change the e-mail address of your Infrastructure Catalog account to ${escapeHtml(newEmail)}.</p>`,
    '<p>The change takes effect only when the link sent to the new address is opened.</p>',
    '<p>If this was not you, change your password now and review your authenticators and sessions.</p>',
  ].join('\n');
  return { to, subject: 'Your Infrastructure Catalog e-mail address is being changed', text, html };
}

/**
 * Confirms an e-mail change with the mailed token. One transaction claims the token (single use,
 * unexpired), takes the new address's uniqueness sentinel (400 when someone has it by now), releases
 * the old one and moves the account's address (and the staff list's sort key), on condition the
 * account still has the address the change started from.
 */
export async function confirmEmailChange(ctx: AppContext, input: { token: string }): Promise<void> {
  const { record, now, spendStep } = await readLinkToken<EmailChangeToken>(ctx, {
    token: input.token,
    keyOf: keys.emailChange,
    refusals: CONFIRM_REFUSALS,
  });
  const { GSI1PK, GSI1SK } = keys.accountsIndex(record.new_email);
  await transact([
    spendStep,
    putNewStep({ ...keys.email(record.new_email), user_id: record.user_id }, invalid(EMAIL_TAKEN)),
    deleteWhenStep(keys.email(record.old_email), { user_id: record.user_id }, invalid(EMAIL_CHANGE_OUTDATED)),
    // `email` as read (the account is there, then).
    setWhenStep(
      keys.account(record.user_id),
      { email: record.new_email, GSI1PK, GSI1SK, updated_at: now },
      { email: record.old_email },
      invalid(EMAIL_CHANGE_OUTDATED),
    ),
    // the holder of the link mailed to the new address, after the account holder asked for it
    securityLogStep(
      record.user_id,
      { event: 'email.changed', actor: 'self', details: { old_email: record.old_email, new_email: record.new_email } },
      ctx,
    ),
  ]);
}
