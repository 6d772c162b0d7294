import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchWriteCommand, QueryCommand, BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { startLocalStack } from '../../infra/local/stack.ts';
import { ddb } from '#shared/clients';

/**
 * `npx tsx test/bench/ddb-local-query.ts`: what a Query of 50 items and a BatchGet of them cost in
 * DynamoDB Local as its partition grows, with items sorting after the range and before it
 * (docs/scale.md, "Why a page's time grew in DynamoDB Local"). Medians of 7, in ms, with the range read by `begins_with` and by BETWEEN.
 */

const dataDir = await mkdtemp(join(tmpdir(), 'microq-'));
const stack = await startLocalStack({
  inMemory: true,
  withoutHttp: true,
  env: {
    TABLE_NAME: 'microq',
    LOCAL_DATA_DIR: dataDir,
    LOG_LEVEL: 'error',
    LOCAL_OUTBOX_POLL_MS: '0',
    LOCAL_STREAM_POLL_MS: '0',
    LOCAL_WEBHOOK_RETRY_SWEEP_SECONDS: '0',
    LOCAL_DEADLINE_SWEEP_SECONDS: '0',
    POWERTOOLS_METRICS_DISABLED: 'true',
  },
});
const TableName = stack.config.TABLE_NAME;
const pad = 'x'.repeat(400);
async function fill(prefix: string, from: number, to: number) {
  const reqs: Record<string, unknown>[][] = [];
  for (let i = from; i < to; i += 25)
    reqs.push(
      Array.from({ length: Math.min(25, to - i) }, (_, j) => ({
        PutRequest: { Item: { PK: 'P', SK: `${prefix}${String(i + j).padStart(8, '0')}`, pad } },
      })),
    );
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < reqs.length)
        await ddb().send(new BatchWriteCommand({ RequestItems: { [TableName]: reqs[next++] as never } }));
    }),
  );
}
/** The range `A#` as DynamoDB Local reads it slowly (begins_with) and quickly (BETWEEN: docs/decisions/0980). */
const RANGE = {
  begins_with: {
    KeyConditionExpression: 'PK = :p AND begins_with(SK, :s)',
    ExpressionAttributeValues: { ':p': 'P', ':s': 'A#' },
  },
  between: {
    KeyConditionExpression: 'PK = :p AND SK BETWEEN :s AND :e',
    ExpressionAttributeValues: { ':p': 'P', ':s': 'A#', ':e': 'A$' },
  },
};
async function timeQuery(range: keyof typeof RANGE) {
  const times: number[][] = [];
  for (let r = 0; r < 7; r++) {
    const t = performance.now();
    const out = await ddb().send(
      new QueryCommand({
        TableName,
        ...RANGE[range],
        Limit: 50,
        ConsistentRead: true,
      }),
    );
    const q = performance.now() - t;
    const t2 = performance.now();
    await ddb().send(
      new BatchGetCommand({
        RequestItems: { [TableName]: { Keys: out.Items!.map((i) => ({ PK: i.PK, SK: i.SK })), ConsistentRead: true } },
      }),
    );
    times.push([q, performance.now() - t2]);
  }
  times.sort((a, b) => a[0] - b[0]);
  return times[3].map((x) => x.toFixed(1));
}
const both = async () => `begins_with ${await timeQuery('begins_with')}; BETWEEN ${await timeQuery('between')}`;
await fill('A#', 0, 100);
console.log('filler 0: query, batchget ms:', await both());
let n = 0;
for (const upto of [20000, 100000, 300000]) {
  await fill('Z#', n, upto);
  n = upto;
  console.log(`filler ${upto} (after the range): query, batchget ms:`, await both());
}
await fill('0#', 0, 100000);
console.log(`+100000 before the range: query, batchget ms:`, await both());
process.exit(0);
