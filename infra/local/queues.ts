import { randomUUID } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { useLocalQueueTransport, type QueueName } from '#shared/queue';
import { MAX_RECEIVES } from '#shared/queue-settings';
import { workerTable } from '../../functions/workers/index.ts';
import { config } from '#shared/config';
import { errorFields, log } from '#shared/log';
import { injectedFailure, redeliveryAfterSuccess, strikes } from '#shared/faults';

/** Injected faults (shared/faults.ts): how long a held-back message waits, and a "late" one's visibility timeout, scaled down. */
const REORDER_MS = 200;
const LATE_MS = 500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function record(queue: QueueName, messageId: string, body: string, receiveCount: number): SQSRecord {
  const now = String(Date.now());
  return {
    messageId,
    receiptHandle: `${messageId}-${receiveCount}`,
    body,
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: now,
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: now,
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:local:000000000000:${queue}`,
    awsRegion: 'local',
  };
}

/**
 * In-process stand-in for SQS: each message is handed to its queue's worker as an SQS event, as the
 * Lambda event source mapping would; failures (thrown or reported) are redelivered with backoff and
 * after five receives land in `<LOCAL_DATA_DIR>/dlq/<queue>.jsonl`.
 */
export function startLocalQueues() {
  const inFlight = new Set<Promise<void>>();

  async function deliver(queue: QueueName, messageId: string, body: string, receiveCount: number): Promise<void> {
    const worker = workerTable[queue];
    if (!worker) {
      log.debug('no local worker for queue; message dropped', { queue });
      return;
    }
    if (strikes('sqs', 'reorder')) await sleep(REORDER_MS); // later messages overtake this one
    let failed = false;
    try {
      const event: SQSEvent = { Records: [record(queue, messageId, body, receiveCount)] };
      const out = await worker.handler(event);
      failed = out.batchItemFailures.length > 0;
      // The work is done, but the worker dies before the message is deleted: it comes back.
      if (strikes('worker', 'kill')) failed = true;
    } catch (err) {
      log.error('local worker failed', { queue, message_id: messageId, ...errorFields(err) });
      failed = true;
    }
    if (!failed) {
      // At-least-once: the same message again (once), at once or after its visibility timeout.
      const again = redeliveryAfterSuccess(receiveCount);
      if (again === 'duplicate') return deliver(queue, messageId, body, receiveCount + 1);
      if (again === 'late') return sleep(LATE_MS).then(() => deliver(queue, messageId, body, receiveCount + 1));
      return;
    }
    if (receiveCount >= MAX_RECEIVES) {
      const dir = join(config().LOCAL_DATA_DIR, 'dlq');
      await mkdir(dir, { recursive: true });
      await appendFile(join(dir, `${queue}.jsonl`), `${JSON.stringify({ messageId, body })}\n`);
      return;
    }
    await sleep(100 * 2 ** receiveCount);
    return deliver(queue, messageId, body, receiveCount + 1);
  }

  useLocalQueueTransport(async (queue, body) => {
    // A send fails as SQS's would (`sqs.throttle`, `sqs.unavailable`, `sqs.error`): nothing is queued.
    const failure = injectedFailure('sqs');
    if (failure) throw failure;
    const p = new Promise<void>((r) => setImmediate(r)).then(() => deliver(queue, randomUUID(), body, 1));
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  });

  return {
    /** Resolves when every queued message (and its retries) has been handled. */
    async drain(): Promise<void> {
      while (inFlight.size) await Promise.allSettled([...inFlight]);
    },
    stop() {
      useLocalQueueTransport(undefined);
    },
  };
}
