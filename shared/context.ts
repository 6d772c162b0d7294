import { randomUUID } from 'node:crypto';
import { config, type Config } from './config.ts';
import type { Account, Actor } from './actor.ts';
import { unauthenticated } from './errors.ts';
import { currentScope, type InvocationScope } from './invocation.ts';

/** Where time comes from: the system clock in production, a controlled one in tests. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

export type { Actor } from './actor.ts';

/** Where a request came from: recorded with the changes it makes (audit) and on every log line (correlation). */
export interface RequestOrigin {
  requestId: string;
  sourceIp: string;
  userAgent: string;
}

/**
 * What every domain function gets first (`fn(ctx, input)`): who is asking, the clock, id
 * generation and configuration. One per request, made before anything is read.
 */
export interface AppContext {
  /** The caller; null before authentication, on public routes without a token, in workers and tools. */
  actor: Actor | null;
  clock: Clock & {
    /** When the request arrived, before anything was read (sync cursors are taken from it). */
    receivedAt: Date;
  };
  ids: { newId(): string };
  config: Config;
  /** The HTTP request being served; null in workers, sweeps and tools. */
  origin: RequestOrigin | null;
  /**
   * The import whose work this is, when an import runs ordinary domain functions for its starter
   * (its prune's deletions): every audit entry written under this context names it (`import_id`).
   */
  importId?: string | null;
}

export function appContext(opts: { clock?: Clock; actor?: Actor | null; origin?: RequestOrigin } = {}): AppContext {
  const clock = opts.clock ?? systemClock;
  return {
    actor: opts.actor ?? null,
    clock: { now: () => clock.now(), receivedAt: clock.now() },
    ids: { newId: randomUUID },
    config: config(),
    origin: opts.origin ?? null,
  };
}

export const epochSeconds = (d: Date) => Math.floor(d.getTime() / 1000);

export const NOT_AUTHENTICATED = 'Not authenticated';

/** The signed-in caller's account; a domain function that needs one refuses an anonymous context. */
export function actorAccount(ctx: AppContext): Account {
  if (!ctx.actor) throw unauthenticated(NOT_AUTHENTICATED);
  return ctx.actor.account;
}

/** The authenticated request's context per invocation: read by checks that their callers reach without ctx. */
const requestContexts = new WeakMap<InvocationScope, AppContext>();

/** Makes `ctx` the running invocation's request context (the pipeline, once the caller is authenticated). */
export function bindRequestContext(ctx: AppContext): void {
  const scope = currentScope();
  if (scope) requestContexts.set(scope, ctx);
}

/** The running invocation's authenticated request context, if any (required single sign-on reads the session from it). */
export function requestContext(): AppContext | undefined {
  const scope = currentScope();
  return scope && requestContexts.get(scope);
}
