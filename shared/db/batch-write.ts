import { BatchWriteCommand, type BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import type { Key } from './batch-get.ts';
import { retry } from './retry.ts';
import { LeftUnprocessed } from '#shared/outage';

type Request = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

/** DynamoDB's most requests of one BatchWriteItem. */
const PER_REQUEST = 25;
/** BatchWriteItem requests in flight at once, in the whole process (however many writes share them). */
const IN_FLIGHT = 4;
let inFlight = 0;
const queued: (() => void)[] = [];

/** Runs `fn` once fewer than IN_FLIGHT requests are in flight. */
async function inTurn<T>(fn: () => Promise<T>): Promise<T> {
  if (inFlight >= IN_FLIGHT) await new Promise<void>((resolve) => queued.push(resolve));
  else inFlight++;
  try {
    return await fn();
  } finally {
    const next = queued.shift();
    if (next) next();
    else inFlight--;
  }
}

/** One BatchWriteItem, sending again what DynamoDB left unprocessed (with backoff) until all is written. */
async function writeAll(requests: Request[]): Promise<void> {
  const TableName = config().TABLE_NAME;
  let pending = requests;
  await retry(
    async () => {
      const out = await ddb().send(new BatchWriteCommand({ RequestItems: { [TableName]: pending } }));
      pending = out.UnprocessedItems?.[TableName] ?? [];
      if (pending.length) throw new LeftUnprocessed();
    },
    { attempts: 10, when: (err) => err instanceof LeftUnprocessed, baseMs: 50 },
  );
}

/**
 * Puts and deletes of independent items by BatchWriteItem (25 a request, at most 4 requests in
 * flight in the process, so writes that overlap share them): no
 * conditions, no atomicity, each write idempotent. Only for items a staged write (staged-write.ts)
 * accounts for, never as a way around a transaction.
 */
export async function batchWrite(writes: ({ put: Record<string, unknown> } | { delete: Key })[]): Promise<void> {
  const requests: Request[] = writes.map((w) =>
    'put' in w ? { PutRequest: { Item: w.put } } : { DeleteRequest: { Key: w.delete } },
  );
  const groups = Array.from({ length: Math.ceil(requests.length / PER_REQUEST) }, (_, i) =>
    requests.slice(i * PER_REQUEST, (i + 1) * PER_REQUEST),
  );
  await Promise.all(groups.map((group) => inTurn(() => writeAll(group))));
}
