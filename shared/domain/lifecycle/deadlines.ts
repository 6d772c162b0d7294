import { keys } from '#db/keys';
import { getItem } from '#db/items';
import { deleteWhenStep } from '#db/steps';
import { concurrentChange, transact, type TransactStep } from '#db/transact';
import { sweepDue } from '#db/due';
import { escapeHtml, oneLine } from '#mail/html';
import { mailStep, writeMail } from '#mail/send';
import type { AppContext } from '#shared/context';
import { getAccount } from '#domain/identity';
import { activePlan } from '#domain/billing';
import { accountUsage, anyOver, overage, type Overage } from './usage.ts';
import { overageCandidatesOf } from './candidates.ts';
import { archiveSelection } from './archive.ts';
import { ARCHIVABLE_KINDS, type ArchiveReport } from './selection.ts';
import type { DeadlineKind } from './downgrade.ts';
import type { DowngradeWindow } from './downgrade-window.ts';

interface Deadline {
  PK: string;
  SK: string;
  user_id: string;
  kind: DeadlineKind;
  until: string;
}

/**
 * The deadline sweep (a schedule in the cloud, a timer in the local runtime, a call with a moved
 * clock in tests): everything due by now, oldest first, each run once. A deadline whose window was
 * replaced or closed does nothing. A failure leaves the deadline for the next sweep.
 */
export const sweepDeadlines = (ctx: AppContext) =>
  sweepDue<Deadline>(keys.deadlinesPK, ctx.clock.now(), (d) => runDeadline(d, ctx), {
    what: 'deadline',
    logFields: (d) => ({ user_id: d.user_id, kind: d.kind }),
  });

async function runDeadline(d: Deadline, ctx: AppContext): Promise<void> {
  const window = await getItem<DowngradeWindow>(keys.downgradeWindow(d.user_id));
  if (!window || window.until !== d.until) return; // replaced by a later confirmation, or closed
  const [current, usage, account] = await Promise.all([
    activePlan(d.user_id),
    accountUsage(d.user_id),
    getAccount(d.user_id),
  ]);
  if (!current || !account) return;
  const o = overage(usage, current.plan);
  if (d.kind !== 'enforce') {
    if (anyOver(o))
      await writeMail(reminderMail(account.email, current.plan.name, o, window, d.kind === 'reminder-7d' ? 7 : 1), ctx);
    return;
  }
  let mail: TransactStep[] = [];
  if (anyOver(o)) {
    const { suggested } = await overageCandidatesOf(d.user_id, usage, o);
    const report = await archiveSelection(d.user_id, suggested, ctx);
    mail = [mailStep(enforcedMail(account.email, current.plan.name, report), ctx)];
  }
  // The window closes, with the mail that tells what was archived (the outbox); a later downgrade opens a new one.
  try {
    await transact([...mail, deleteWhenStep(keys.downgradeWindow(d.user_id), { until: window.until }, WINDOW_MOVED)]);
  } catch (err) {
    if (err !== WINDOW_MOVED) throw err;
    // Replaced by a later confirmation meanwhile (it stays open): what was archived is still told.
    if (mail.length) await transact(mail);
  }
}

const WINDOW_MOVED = concurrentChange();

const LABEL: Record<string, string> = {
  services: 'services',
  environments: 'environments',
  project_users: 'project users',
  api_keys: 'API keys',
  service_floors: 'service floors',
};

function reminderMail(to: string, planName: string, o: Overage, window: DowngradeWindow, days: number) {
  const lines = (Object.entries(o.over) as [string, number][])
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${LABEL[k]} over the limit`);
  if (o.environments_over > 0) lines.push(`${o.environments_over} environments over the limit`);
  const intro = `Your account is still over the limits of the ${oneLine(planName)} plan. On ${window.until.slice(0, 10)} (in ${days} day${days === 1 ? '' : 's'}) we will archive what is over, newest first. Nothing is deleted: archived items come back with POST /me/unarchive while your plan allows them.`;
  return {
    to,
    subject: `${days === 1 ? 'Tomorrow' : `In ${days} days`}: items over your plan's limits will be archived`,
    text: [
      intro,
      '',
      ...lines,
      '',
      'Choose what to archive yourself: GET /me/limits/overage-candidates, then POST /me/mark-archived.',
    ].join('\n'),
    html: `<p>${escapeHtml(intro)}</p><ul>${lines.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>`,
  };
}

function enforcedMail(to: string, planName: string, report: ArchiveReport) {
  const groups = ARCHIVABLE_KINDS.filter((k) => report[k]?.length).map((k) => ({
    label: LABEL[k],
    names: report[k].map((i) => oneLine(i.name)),
  }));
  const intro = `Your grace window has ended and your account was over the limits of the ${oneLine(planName)} plan, so we archived the following (newest first). Nothing was deleted: restore items with POST /me/unarchive while your plan allows them.`;
  return {
    to,
    subject: "Items over your plan's limits were archived",
    text: [intro, '', ...groups.flatMap((g) => [`${g.label}:`, ...g.names.map((n) => `- ${n}`)])].join('\n'),
    html: `<p>${escapeHtml(intro)}</p>${groups.map((g) => `<h3>${escapeHtml(g.label)}</h3><ul>${g.names.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>`).join('')}`,
  };
}
