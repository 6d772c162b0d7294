import { keys } from '#db/keys';
import { deleteItem, getItem } from '#db/items';
import { countInWindow, holdStep } from '#db/window-counter';
import { transact } from '#db/transact';
import { conflict, locked, unauthenticated } from '#shared/errors';
import type { AppContext } from '#shared/context';
import { normalizeEmail } from './accounts.ts';
import { recordSecurityEvent, securityLogStep, type SecurityEventInput } from './security-log.ts';

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

export const lockedOut = (untilMs: number, ctx: AppContext) =>
  locked(ACCOUNT_LOCKED, new Date(untilMs), ctx.clock.now());

export const loginFailures = (email: string) => getItem<LoginFailures>(keys.loginFailures(normalizeEmail(email)));

/** The end of the lock in force, if any (epoch ms). */
export function lockedUntil(state: LoginFailures | undefined, ctx: AppContext): number | undefined {
  const until = state?.locked_until_ms;
  return until !== undefined && until > ctx.clock.now().getTime() ? until : undefined;
}

/**
 * Counts one failed attempt and returns the end of the lock when this attempt reached (or found) the
 * threshold. The window is the fixed-window counter of #db/window-counter (concurrent failures are
 * each counted; an ended window is replaced by a fresh one).
 */
export async function recordLoginFailure(email: string, ctx: AppContext, userId?: string): Promise<number | undefined> {
  const Key = keys.loginFailures(normalizeEmail(email));
  const now = ctx.clock.now().getTime();
  const windowEnds = now + LOCKOUT.windowSeconds * 1000;
  const { tally: failures } = await countInWindow(Key, FAILURES_WINDOW, now, {
    ends: windowEnds,
    item: { type: 'login_failures', expires_at_epoch: epoch(windowEnds) },
  });
  return failures >= LOCKOUT.maxFailures ? lock(email, ctx, userId) : undefined;
}

/** Failures within a window that ends at `window_ends_ms` (epoch ms). */
const FAILURES_WINDOW = { count: 'failures', ends: 'window_ends_ms' } as const;

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
  const entry: SecurityEventInput = {
    event: 'lockout.started',
    actor: 'anonymous',
    details: { locked_until: new Date(until).toISOString() },
  };
  try {
    await transact([
      holdStep(key, 'locked_until_ms', until, now, { expires_at_epoch: epoch(until) }, LOCK_IN_FORCE),
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
export async function refuseAndCount(
  email: string,
  detail: string,
  ctx: AppContext,
  log?: RefusalEntry,
): Promise<never> {
  const [lockEnd] = await Promise.all([
    recordLoginFailure(email, ctx, log?.userId),
    log ? recordSecurityEvent(log.userId, log.entry, ctx) : undefined,
  ]);
  if (lockEnd) throw lockedOut(lockEnd, ctx);
  throw unauthenticated(detail);
}

/** A successful sign-in (or password reset) starts the count afresh. */
export async function clearLoginFailures(email: string): Promise<void> {
  await deleteItem(keys.loginFailures(normalizeEmail(email)));
}

const epoch = (ms: number) => Math.ceil(ms / 1000);
