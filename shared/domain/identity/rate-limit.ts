import { keys } from '#db/keys';
import { conditionalPut, conditionalUpdate } from '#db/items';
import { rateLimited } from '#shared/errors';
import type { AppContext } from '#shared/context';

export interface RateDecision {
  allowed: boolean;
  /** Seconds until the current window ends (what a 429's Retry-After says). */
  retryAfterSeconds: number;
}

/**
 * Exact fixed-window counter in DynamoDB: one item per bucket holding `hits` and the window's end in
 * `expires_at_epoch` (the table's TTL attribute, so finished windows disappear by themselves). TTL
 * deletes lazily, so the conditions themselves treat an item past its end as absent:
 * - count into a live window that is not full (atomic ADD);
 * - otherwise, if the window is missing or over, start a new one with this request as its first hit;
 * - otherwise the window is full: refuse until it ends.
 * The window opens with the bucket's first request and lasts `windowSeconds`.
 */
export async function consume(bucket: string, limit: number, windowSeconds: number, ctx: AppContext): Promise<RateDecision> {
  const Key = keys.rateLimit(bucket);
  const now = Math.floor(ctx.clock.now().getTime() / 1000);
  for (let attempt = 0; attempt < 5; attempt++) {
    const counted = await conditionalUpdate(Key, {
      UpdateExpression: 'ADD hits :one',
      ConditionExpression: 'expires_at_epoch > :now AND hits < :limit',
      ExpressionAttributeValues: { ':one': 1, ':now': now, ':limit': limit },
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    if (counted.ok) return { allowed: true, retryAfterSeconds: Number(counted.item.expires_at_epoch) - now };
    const ends = Number(counted.old?.expires_at_epoch ?? 0);
    if (ends > now) return { allowed: false, retryAfterSeconds: ends - now };
    const opened = await conditionalPut(
      { ...Key, type: 'rate_limit', bucket, hits: 1, expires_at_epoch: now + windowSeconds },
      { ConditionExpression: 'attribute_not_exists(PK) OR expires_at_epoch <= :now', ExpressionAttributeValues: { ':now': now } },
    );
    if (opened) return { allowed: true, retryAfterSeconds: windowSeconds };
    // another request opened the new window first: count into it
  }
  throw new Error(`Rate limiter did not settle for ${bucket}`);
}

/** Refuses with 429 and Retry-After once the bucket's window is full ('Too many requests' unless `detail` says more). */
export async function enforceRateLimit(bucket: string, limit: number, windowSeconds: number, ctx: AppContext, detail?: string): Promise<void> {
  const decision = await consume(bucket, limit, windowSeconds, ctx);
  if (!decision.allowed) throw rateLimited(Math.max(1, decision.retryAfterSeconds), detail);
}

/** SPEC "Rate limits": a route's requests per minute from one source address (one bucket per route and address). */
export const perAddressPerMinute = (route: string, sourceIp: string, limit: number, ctx: AppContext) =>
  enforceRateLimit(`${route}#${sourceIp}`, limit, 60, ctx);
