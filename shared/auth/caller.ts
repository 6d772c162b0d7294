import { keys } from '#db/keys';
import { batchGet, keyId } from '#db/batch-get';
import type { Account, Session } from '#shared/actor';
import type { AppContext } from '#shared/context';

/**
 * The read behind every authenticated request: the caller's account and session, and when a session has lapsed.
 * Authentication (`authenticate.ts`) and the identity context (refresh, session lists; it re-exports these) both
 * use it, so that authentication needs no context.
 */

/** The same refusal for a missing and a blocked account (SPEC), wherever a token or session is checked. */
export const USER_NOT_FOUND_OR_INACTIVE = 'User not found or inactive';

/** Reads an account and one of its sessions in a single round trip (strongly consistent). */
export async function getAccountAndSession(userId: string, sessionId: string): Promise<{ account?: Account; session?: Session }> {
  const accountKey = keys.account(userId);
  const sessionKey = keys.session(userId, sessionId);
  const items = await batchGet([accountKey, sessionKey]);
  return { account: items.get(keyId(accountKey)) as Account | undefined, session: items.get(keyId(sessionKey)) as Session | undefined };
}

export const sessionExpired = (s: Session, ctx: AppContext) => s.expires_at <= ctx.clock.now().toISOString();
