import type { AppContext } from '#shared/context';
import type { MailMessage } from '#mail/mailer';
import { escapeHtml, oneLine } from '#mail/html';

/** The accept URL: built by the service, sent only to the invited mailbox. */
export const invitationLink = (token: string, ctx: AppContext) =>
  `${ctx.config.APP_BASE_URL.replace(/\/+$/, '')}/invitations/accept?token=${encodeURIComponent(token)}`;

export interface InvitationMailFacts {
  to: string;
  firstName: string | null;
  inviter: string;
  projectName: string;
  link: string;
  validHours: number;
}

/**
 * The invitation mail, plain text and HTML. Every name in it is user-provided: each is first made one
 * line (control characters, CR/LF included, stripped: `oneLine`) for the subject and both parts, and
 * the HTML part escapes it too.
 */
export function invitationMail(facts: InvitationMailFacts): MailMessage {
  const f = {
    ...facts,
    firstName: oneLine(facts.firstName ?? '') || null,
    inviter: oneLine(facts.inviter),
    projectName: oneLine(facts.projectName),
  };
  const greeting = f.firstName ? `Hello ${f.firstName},` : 'Hello,';
  const text = [
    greeting,
    '',
    `${f.inviter} invited you to join the project "${f.projectName}" on Infrastructure Catalog.`,
    '',
    `Open this link within ${f.validHours} hours to accept the invitation:`,
    f.link,
    '',
    'If you did not expect this invitation, ignore this message.',
  ].join('\n');
  const html = [
    `<p>${escapeHtml(greeting)}</p>`,
    `<p>${escapeHtml(f.inviter)} invited you to join the project &quot;${escapeHtml(f.projectName)}&quot; on Infrastructure Catalog.</p>`,
    `<p><a href="${escapeHtml(f.link)}">Accept the invitation</a> (the link is valid for ${f.validHours} hours).</p>`,
    `<p>If the link does not work, paste this address into your browser:<br>${escapeHtml(f.link)}</p>`,
    '<p>If you did not expect this invitation, ignore this message.</p>',
  ].join('\n');
  const subject = oneLine(`${f.inviter} invited you to ${f.projectName} on Infrastructure Catalog`);
  return { to: f.to, subject, text, html };
}
