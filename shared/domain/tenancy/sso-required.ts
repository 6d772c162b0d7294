import { keys } from '#db/keys';
import { putNewStep } from '#db/steps';
import { transact } from '#db/transact';
import { epochSeconds, requestContext } from '#shared/context';
import { forbidden, isRefusal } from '#shared/errors';
import { auditStep } from '#shared/audit';
import type { Project } from './project-types.ts';

/** The refusal of a password session on a project that requires single sign-on. */
export const SSO_REQUIRED = 'This project requires single sign-on';

/** Break-glass uses already recorded by this process (a warm function does not write again per request). */
const recorded = new Set<string>();

/**
 * Required single sign-on: on a project whose connection says `required`, a person's session that did
 * not come from this project's connection is refused (403), except the owner's, the break-glass path
 * (tenancy/access.ts decides), whose use is written to the project's audit log once per session. API
 * keys (the machine credential), workers and tools carry no session and are not concerned.
 *
 * The request's session when it is such a password session on `project`, else undefined.
 */
export function passwordSessionOn(project: Project) {
  const ctx = requestContext();
  const session = ctx?.actor?.session;
  return ctx && session && session.sso_project_id !== project.id ? { ctx, session } : undefined;
}

/** The owner's break-glass use of a password session on `project`: in its audit log, once per session. */
export async function recordBreakGlass(
  { ctx, session }: NonNullable<ReturnType<typeof passwordSessionOn>>,
  project: Project,
): Promise<void> {
  const once = `${project.id}#${session.id}`;
  if (recorded.has(once)) return;
  if (recorded.size > 10_000) recorded.clear();
  const now = ctx.clock.now();
  try {
    await transact([
      putNewStep(
        {
          ...keys.ssoBreakGlass(project.id, session.id),
          type: 'sso_break_glass',
          session_id: session.id,
          at: now.toISOString(),
          expires_at_epoch: epochSeconds(now) + 30 * 86_400,
        },
        forbidden('recorded'),
      ),
      ...auditStep(
        ctx,
        {
          action: 'sso_connection.break_glass',
          entity_type: 'sso_connection',
          entity_id: project.id,
          project_id: project.id,
          before: null,
          after: { session_id: session.id },
        },
        { mode: 'creation' },
      ),
    ]);
  } catch (err) {
    if (!isRefusal(err, 'forbidden')) throw err;
  }
  recorded.add(once);
}
