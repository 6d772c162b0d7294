import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** One message the local mailer delivered (`<dataDir>/outbox/*.json`), as its recipient would read it. */
export interface OutboxMail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/**
 * The delivered messages, oldest first, optionally only those to one address. Call after
 * `await ref.stack.queues.drain()`: mail goes through the mail queue.
 */
export async function readOutbox(dataDir: string, filter: { to?: string } = {}): Promise<OutboxMail[]> {
  const dir = join(dataDir, 'outbox');
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.json'));
  // File names are `<ISO time>-<pid>-<sequence>.json`: numeric collation keeps same-millisecond mails in order.
  files.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const mails = await Promise.all(
    files.map(async (f) => JSON.parse(await readFile(join(dir, f), 'utf8')) as OutboxMail),
  );
  const to = filter.to?.toLowerCase();
  return to ? mails.filter((m) => m.to.toLowerCase() === to) : mails;
}

/** The first link in the mail's plain-text part whose path is `path` (e.g. '/invitations/accept'); throws when there is none. */
export function linkFrom(mail: OutboxMail, path: string): URL {
  for (const candidate of mail.text.match(/https?:\/\/\S+/g) ?? []) {
    const url = new URL(candidate);
    if (url.pathname === path) return url;
  }
  throw new Error(`no ${path} link in mail "${mail.subject}" to ${mail.to}`);
}
