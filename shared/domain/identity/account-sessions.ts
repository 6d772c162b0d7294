/** The account's sessions as a whole: the list the caller sees, and revoking all but one (sign out elsewhere, a reset, a block). */
import { keys } from '#db/keys';
import { transactInChunks } from '#db/transact';
import { deleteStep } from '#db/steps';
import { queryPartition } from '#db/query';
import type { AppContext } from '#shared/context';
import { sessionExpired } from '#auth/caller';
import type { Session } from '#shared/actor';
import { sessionEntity } from '#shared/account-entity';
import { securityLogStep, type SecurityEventInput } from './security-log.ts';
import { actorSession } from './sessions.ts';

/** What the sessions list shows of a session; `current` marks the caller's own. */
export const toSessionOut = (s: Session, currentId: string) => ({
  id: s.id,
  device: s.device,
  ip: s.ip,
  created_at: s.created_at,
  last_seen_at: s.last_seen_at,
  current: s.id === currentId,
});

/** The account's live sessions, most recently used first. */
async function sessionsOf(userId: string, ctx: AppContext): Promise<Session[]> {
  const sessions = (await queryPartition(keys.account(userId).PK, keys.sessionPrefix)).map(sessionEntity.decode);
  return sessions.filter((s) => !sessionExpired(s, ctx)).sort((a, b) => b.last_seen_at.localeCompare(a.last_seen_at));
}

/** The caller's signed-in sessions as the list shows them, the calling one marked current. */
export async function listSessions(ctx: AppContext) {
  const { account, session } = actorSession(ctx);
  return (await sessionsOf(account.id, ctx)).map((s) => toSessionOut(s, session.id));
}

/**
 * Revokes (deletes) every session of the account except `keepSessionId`; answers how many were
 * revoked. An `entry` for the security log goes into the (last) transaction of the deletes.
 */
export async function revokeAccountSessions(
  userId: string,
  ctx: AppContext,
  keepSessionId?: string,
  entry?: (count: number) => SecurityEventInput,
): Promise<number> {
  const doomed = (await sessionsOf(userId, ctx)).filter((s) => s.id !== keepSessionId);
  const deletes = doomed.map((s) => deleteStep(keys.session(userId, s.id)));
  await transactInChunks(entry ? [...deletes, securityLogStep(userId, entry(doomed.length), ctx)] : deletes);
  return doomed.length;
}

/** Revokes every session of the caller except the calling one (logged with the count); answers how many were revoked. */
export async function revokeOtherSessions(ctx: AppContext): Promise<number> {
  const { account, session } = actorSession(ctx);
  return revokeAccountSessions(account.id, ctx, session.id, (revoked) => ({
    event: 'sessions.revoked',
    details: { revoked, kept_session_id: session.id },
  }));
}
