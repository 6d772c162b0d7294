import { keys } from '#db/keys';
import { countInWindow } from '#db/window-counter';
import { rateLimited } from '#shared/errors';
import type { AppContext } from '#shared/context';

export interface RateDecision {
  allowed: boolean;
  /** Seconds until the current window ends (what a 429's Retry-After says). */
  retryAfterSeconds: number;
}

/**
 * An exact fixed-window counter per bucket (#db/window-counter): `hits` within a window that ends at
 * `expires_at_epoch` (the table's TTL attribute, so finished windows disappear by themselves). The
 * window opens with the bucket's first request and lasts `windowSeconds`; a full one refuses until it ends.
 */
export async function consume(
  bucket: string,
  limit: number,
  windowSeconds: number,
  ctx: AppContext,
): Promise<RateDecision> {
  const now = Math.floor(ctx.clock.now().getTime() / 1000);
  const hit = await countInWindow(keys.rateLimit(bucket), { count: 'hits', ends: 'expires_at_epoch', limit }, now, {
    ends: now + windowSeconds,
    item: { type: 'rate_limit', bucket },
  });
  return { allowed: hit.counted, retryAfterSeconds: hit.ends - now };
}

/** Refuses with 429 and Retry-After once the bucket's window is full ('Too many requests' unless `detail` says more). */
export async function enforceRateLimit(
  bucket: string,
  limit: number,
  windowSeconds: number,
  ctx: AppContext,
  detail?: string,
): Promise<void> {
  const decision = await consume(bucket, limit, windowSeconds, ctx);
  if (!decision.allowed) throw rateLimited(Math.max(1, decision.retryAfterSeconds), detail);
}

/** SPEC "Rate limits": a route's requests per minute from one source address (one bucket per route and address). */
export const perAddressPerMinute = (route: string, sourceIp: string, limit: number, ctx: AppContext) =>
  enforceRateLimit(`${route}#${sourceIp}`, limit, 60, ctx);
