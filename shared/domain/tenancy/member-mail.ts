import type { AppContext } from '#shared/context';
import type { MailMessage } from '#mail/mailer';
import { escapeHtml, oneLine } from '#mail/html';

/** The project's page in the dashboard. */
export const projectLink = (projectId: string, ctx: AppContext) =>
  `${ctx.config.APP_BASE_URL.replace(/\/+$/, '')}/p/${encodeURIComponent(projectId)}`;

export interface AddedMailFacts {
  to: string;
  /** Who added them: their name, else their e-mail address. */
  owner: string;
  projectName: string;
  /** What they were given, e.g. `the role manager in the environment "production"`. */
  grant: string;
  link: string;
}

/**
 * The mail to someone an owner made a member by giving them a role: who added them, to
 * which project, with what, and where it is. Every name in it is user-provided: made one line for
 * the subject and both parts, and escaped in the HTML part (as the invitation mail does).
 */
export function addedToProjectMail(facts: AddedMailFacts): MailMessage {
  const f = {
    ...facts,
    owner: oneLine(facts.owner),
    projectName: oneLine(facts.projectName),
    grant: oneLine(facts.grant),
  };
  const text = [
    'Hello,',
    '',
    `${f.owner} added you to the project "${f.projectName}" on Infrastructure Catalog, with ${f.grant}.`,
    '',
    'Open the project:',
    f.link,
    '',
    `If you did not expect this, ask ${f.owner}, or leave the project from its Members page.`,
  ].join('\n');
  const html = [
    '<p>Hello,</p>',
    `<p>${escapeHtml(f.owner)} added you to the project &quot;${escapeHtml(f.projectName)}&quot; on Infrastructure Catalog, with ${escapeHtml(f.grant)}.</p>`,
    `<p><a href="${escapeHtml(f.link)}">Open the project</a></p>`,
    `<p>If the link does not work, paste this address into your browser:<br>${escapeHtml(f.link)}</p>`,
    `<p>If you did not expect this, ask ${escapeHtml(f.owner)}, or leave the project from its Members page.</p>`,
  ].join('\n');
  const subject = oneLine(`${f.owner} added you to ${f.projectName} on Infrastructure Catalog`);
  return { to: f.to, subject, text, html };
}
