import { keys } from '#db/keys';
import { conditionalPut, conditionalUpdate, deleteItem, getItem } from '#db/items';
import { transact } from '#db/transact';
import { conflict, locked, unauthenticated } from '#shared/errors';
import type { AppContext } from '#shared/context';
import { normalizeEmail } from './accounts';
import { recordSecurityEvent, securityLogStep, type SecurityEventInput } from './security-log';

/**
 * Failed sign-ins per address: this many within the window lock sign-in for the lock period. The
 * counter is keyed by the normalized address, not the account, so an unknown address counts and locks
 * exactly like a real one: neither the 423 nor the extra write's latency tells that an account exists.
 */
export const LOCKOUT = { maxFailures: 10, windowSeconds: 15 * 60, lockSeconds: 15 * 60 } as const;

export const ACCOUNT_LOCKED = 'Account temporarily locked due to failed login attempts. Please try again later.';

/**
 * One item per address. `failures` counts failed attempts in a fixed window that opens with the
 * first failure and ends at `window_ends_ms`; `locked_until_ms` is set when the count reaches the
 * threshold. Times are epoch milliseconds so conditions compare numbers; `expires_at_epoch` lets
 * TTL remove stale counters.
 */
export interface LoginFailures {
  failures: number;
  window_ends_ms: number;
  locked_until_ms?: number;
}

export const lockedOut = (untilMs: number, ctx: AppContext) => locked(ACCOUNT_LOCKED, new Date(untilMs), ctx.clock.now());

export const loginFailures = (email: string) => getItem<LoginFailures>(keys.loginFailures(normalizeEmail(email)));

/** The end of the lock in force, if any (epoch ms). */
export function lockedUntil(state: LoginFailures | undefined, ctx: AppContext): number | undefined {
  const until = state?.locked_until_ms;
  return until !== undefined && until > ctx.clock.now().getTime() ? until : undefined;
}

/**
 * Counts one failed attempt and returns the end of the lock when this attempt reached (or found) the
 * threshold. The count is an atomic ADD, so concurrent failures are each counted; a window that has
 * ended is replaced by a fresh one with a conditional put, racing requests retrying the ADD.
 */
export async function recordLoginFailure(email: string, ctx: AppContext, userId?: string): Promise<number | undefined> {
  const Key = keys.loginFailures(normalizeEmail(email));
  const now = ctx.clock.now().getTime();
  const windowEnds = now + LOCKOUT.windowSeconds * 1000;
  let failures: number | undefined;
  for (let attempt = 0; failures === undefined && attempt < 5; attempt++) {
    const counted = await conditionalUpdate(Key, {
      UpdateExpression: 'ADD failures :one',
      ConditionExpression: 'window_ends_ms > :now',
      ExpressionAttributeValues: { ':one': 1, ':now': now },
      ReturnValues: 'UPDATED_NEW',
    });
    if (counted.ok) {
      failures = counted.item.failures as number;
      continue;
    }
    const opened = await conditionalPut(
      { ...Key, type: 'login_failures', failures: 1, window_ends_ms: windowEnds, expires_at_epoch: epoch(windowEnds) },
      { ConditionExpression: 'attribute_not_exists(PK) OR window_ends_ms <= :now', ExpressionAttributeValues: { ':now': now } },
    );
    // Otherwise another request opened the new window first: count into it.
    if (opened) failures = 1;
  }
  if (failures === undefined) throw new Error('Could not count a failed login');
  return failures >= LOCKOUT.maxFailures ? lock(email, ctx, userId) : undefined;
}

const LOCK_IN_FORCE = conflict('lock in force');

/**
 * Sets the lock unless one is already in force; either way answers when the lock in force ends.
 * For an address with an account (`userId`), the lock's `lockout.started` entry goes into the same
 * transaction; an unknown address makes the same one transaction without it (same round trips).
 */
async function lock(email: string, ctx: AppContext, userId?: string): Promise<number> {
  const now = ctx.clock.now().getTime();
  const until = now + LOCKOUT.lockSeconds * 1000;
  const key = keys.loginFailures(normalizeEmail(email));
  const entry: SecurityEventInput = { event: 'lockout.started', actor: 'anonymous', details: { locked_until: new Date(until).toISOString() } };
  try {
    await transact([
      {
        Update: {
          Key: key,
          UpdateExpression: 'SET locked_until_ms = :until, expires_at_epoch = :expires',
          ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(locked_until_ms) OR locked_until_ms <= :now)',
          ExpressionAttributeValues: { ':until': until, ':now': now, ':expires': epoch(until) },
        },
        failWith: LOCK_IN_FORCE,
      },
      ...(userId ? [securityLogStep(userId, entry, ctx)] : []),
    ]);
    return until;
  } catch (err) {
    if (err !== LOCK_IN_FORCE) throw err;
    // A lock is already in force (a concurrent failure set it): answer its end.
    return (await getItem<LoginFailures>(key))?.locked_until_ms ?? until;
  }
}

/**
 * A refused attempt of a known account, for its security log (an unknown address has no log: nothing
 * is written for it, and the entry's write runs beside the count's, which both make).
 */
export interface RefusalEntry {
  userId: string;
  entry: SecurityEventInput;
}

/**
 * Counts a failed password or second-factor check (sign-in or a re-check of a signed-in caller) and
 * refuses it: 423 when this attempt locked the address, else 401 with `detail`.
 */
export async function refuseAndCount(email: string, detail: string, ctx: AppContext, log?: RefusalEntry): Promise<never> {
  const [lockEnd] = await Promise.all([recordLoginFailure(email, ctx, log?.userId), log ? recordSecurityEvent(log.userId, log.entry, ctx) : undefined]);
  if (lockEnd) throw lockedOut(lockEnd, ctx);
  throw unauthenticated(detail);
}

/** A successful sign-in (or password reset) starts the count afresh. */
export async function clearLoginFailures(email: string): Promise<void> {
  await deleteItem(keys.loginFailures(normalizeEmail(email)));
}

const epoch = (ms: number) => Math.ceil(ms / 1000);
