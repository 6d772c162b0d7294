import { keys } from '#db/keys';
import { putNewStep } from '#db/steps';
import { transact } from '#db/transact';
import { epochSeconds } from '#shared/context';
import { forbidden, isRefusal } from '#shared/errors';
import { currentScope } from '#shared/invocation';
import { auditStep } from '#shared/audit';
import type { Project } from './project-types';

/** SPEC-style detail (issue 44 item 4). */
export const SSO_REQUIRED = 'This project requires single sign-on';

/** Break-glass uses already recorded by this process (a warm function does not write again per request). */
const recorded = new Set<string>();

/**
 * Required single sign-on (issue 44): on a project whose connection says `required`, a person's
 * session that did not come from this project's connection is refused (403) — except the owner's,
 * the break-glass path, whose use is written to the project's audit log once per session. API keys
 * (the machine credential), workers and tools carry no session and are not concerned.
 */
export async function requireSingleSignOn(project: Project, membership: { role: 'owner' | 'member' }): Promise<void> {
  const ctx = currentScope()?.request_ctx;
  const session = ctx?.actor?.session;
  if (!ctx || !session || session.sso_project_id === project.id) return;
  if (membership.role !== 'owner') throw forbidden(SSO_REQUIRED);
  const once = `${project.id}#${session.id}`;
  if (recorded.has(once)) return;
  if (recorded.size > 10_000) recorded.clear();
  const now = ctx.clock.now();
  try {
    await transact([
      putNewStep({ ...keys.ssoBreakGlass(project.id, session.id), type: 'sso_break_glass', session_id: session.id, at: now.toISOString(), expires_at_epoch: epochSeconds(now) + 30 * 86_400 }, forbidden('recorded')),
      ...auditStep(ctx, { action: 'sso_connection.break_glass', entity_type: 'sso_connection', entity_id: project.id, project_id: project.id, before: null, after: { session_id: session.id } }, { mode: 'creation' }),
    ]);
  } catch (err) {
    if (!isRefusal(err, 'forbidden')) throw err;
  }
  recorded.add(once);
}
