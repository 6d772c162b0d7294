import { describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { useTestStack } from '../helpers/stack.ts';
import { ddb } from '#shared/clients';
import { keys } from '#db/keys';
import { appContext, type AppContext } from '#shared/context';
import { consume, enforceRateLimit } from '#domain/identity';

const ref = useTestStack({}, { withoutHttp: true });

/** A context whose clock stands at `ms`. */
const at = (ms: number): AppContext => appContext({ clock: { now: () => new Date(ms) } });
const T0 = Date.parse('2026-05-01T10:00:00.000Z');

describe('generic fixed-window rate limiter (DynamoDB)', () => {
  it('admits exactly `limit` of many concurrent requests in a window', async () => {
    const bucket = `webhook#${randomUUID()}`;
    const decisions = await Promise.all(Array.from({ length: 60 }, () => consume(bucket, 20, 60, at(T0))));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(20);
    expect(decisions.filter((d) => !d.allowed).every((d) => d.retryAfterSeconds === 60)).toBe(true);
  });

  it('opens a new window when the old one is over, counting from the first request', async () => {
    const bucket = `login#${randomUUID()}`;
    for (let i = 0; i < 3; i++) expect((await consume(bucket, 3, 60, at(T0))).allowed).toBe(true);
    expect(await consume(bucket, 3, 60, at(T0 + 59_000))).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect((await consume(bucket, 3, 60, at(T0 + 60_000))).allowed).toBe(true);
    expect(await consume(bucket, 3, 60, at(T0 + 61_000))).toEqual({ allowed: true, retryAfterSeconds: 59 });
  });

  it('treats an item past its expiry as absent, though TTL has not removed it yet', async () => {
    const bucket = `login#${randomUUID()}`;
    await ddb().send(
      new PutCommand({
        TableName: ref.stack.config.TABLE_NAME,
        Item: { ...keys.rateLimit(bucket), hits: 999, expires_at_epoch: Math.floor(T0 / 1000) - 1 },
      }),
    );
    expect((await consume(bucket, 5, 60, at(T0))).allowed).toBe(true);
  });

  it('keeps buckets apart', async () => {
    const [a, b] = [`x#${randomUUID()}`, `x#${randomUUID()}`];
    expect((await consume(a, 1, 60, at(T0))).allowed).toBe(true);
    expect((await consume(a, 1, 60, at(T0))).allowed).toBe(false);
    expect((await consume(b, 1, 60, at(T0))).allowed).toBe(true);
  });

  it('refuses with 429 and Retry-After through enforceRateLimit', async () => {
    const bucket = `x#${randomUUID()}`;
    await enforceRateLimit(bucket, 1, 120, at(T0));
    await expect(enforceRateLimit(bucket, 1, 120, at(T0 + 30_000))).rejects.toMatchObject({
      kind: 'rate_limited',
      detail: 'Too many requests',
      retryAfterSeconds: 90,
    });
  });
});
