import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { prefixCondition } from '#db/query';

export const percentile = (samples: number[], p: number) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/** Times `fn` `runs` times after `warmup` untimed calls; milliseconds per call. */
export async function time(fn: () => Promise<unknown>, runs: number, warmup = Math.ceil(runs / 10)): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return samples;
}

/**
 * Counts the DynamoDB requests a client sends (SDK middleware), by command name, and how many
 * sequential round trips they made: overlapping calls (sent together) count as one, each timed
 * from when it leaves (after anything that holds it, such as the write gate) to its answer.
 */
export function countCalls(client: DynamoDBDocumentClient) {
  const counts = new Map<string, number>();
  const spans: [number, number][] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName ?? 'unknown');
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'benchCallCounter' },
  );
  client.middlewareStack.add(
    (next) => async (args) => {
      const span: [number, number] = [performance.now(), Infinity];
      spans.push(span);
      try {
        return await next(args);
      } finally {
        span[1] = performance.now();
      }
    },
    { step: 'build', name: 'benchRoundTripTimer' },
  );
  return {
    reset: () => (counts.clear(), (spans.length = 0)),
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    byCommand: () => Object.fromEntries(counts),
    roundTrips: () => {
      let rounds = 0;
      let until = -Infinity;
      for (const [start, end] of [...spans].sort((a, b) => a[0] - b[0])) {
        if (start >= until) rounds++;
        until = Math.max(until, end);
      }
      return rounds;
    },
  };
}

/** Times two operations alternately, call by call, so machine noise falls on both alike. */
export async function timePair(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  runs: number,
  warmup = Math.ceil(runs / 10),
) {
  for (let i = 0; i < warmup; i++) await a(), await b();
  const as: number[] = [];
  const bs: number[] = [];
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    await a();
    as.push(performance.now() - t);
    t = performance.now();
    await b();
    bs.push(performance.now() - t);
  }
  return [as, bs] as const;
}

export const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

/**
 * Counts the items DynamoDB reads for a client's requests (SDK middleware): a Query's or Scan's
 * `ScannedCount` (what it read, before any filter) and the items a BatchGet or GetItem returned.
 * The cost of a list page in items, for benches and tests.
 */
export function countItemsRead(client: DynamoDBDocumentClient) {
  const counts = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const out = result.output as { ScannedCount?: number; Responses?: Record<string, unknown[]>; Item?: unknown };
      const name = String(context.commandName ?? 'unknown');
      const n =
        out.ScannedCount ??
        (out.Responses ? Object.values(out.Responses).reduce((a, r) => a + r.length, 0) : out.Item ? 1 : 0);
      counts.set(name, (counts.get(name) ?? 0) + n);
      return result;
    },
    { step: 'initialize', name: 'benchItemsReadCounter', override: true },
  );
  return {
    reset: () => counts.clear(),
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    byCommand: () => Object.fromEntries(counts),
  };
}

/** A raw Query's key condition for a sort-key prefix, sent as the routes send it (decision 0980), so that raw and route read alike. */
export function rawPrefix(pk: string, prefix: string) {
  const range = prefixCondition(prefix);
  return {
    KeyConditionExpression: `PK = :pk AND ${range.condition}`,
    ExpressionAttributeValues: { ':pk': pk, ...range.values },
  };
}
