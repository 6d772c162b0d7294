import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type * as z from 'zod';
import { errorFields, log } from '#shared/log';
import { invocation, withCorrelationId } from '#shared/observe';

/** A body that is not JSON or fails its queue's schema: it will never parse, however often it is retried. */
export class MalformedMessage extends Error {
  override name = 'MalformedMessage';
}

export interface SqsWorker<T> {
  /** The `worker` dimension of its metrics and the name in its log lines. */
  name: string;
  /** The message's schema, shared with its producer (the producer's type is its `z.infer`); built at the first message (`lazySchema`). */
  schema: () => z.ZodType<T>;
  /** Records at once (the events worker: a batch waits for its slowest endpoint, not the sum) or one after another. */
  inParallel: boolean;
  /** What failing a message logs (its error fields and message id are added). */
  failure: string;
  /** One message, parsed; throws to have it retried. Must be idempotent: SQS may hand a message over twice. */
  handle: (message: T, record: SQSRecord) => Promise<void>;
}

/**
 * An SQS worker on Powertools' batch processing: each record's body is parsed once against the
 * schema, then handled inside `withCorrelationId(messageId)`; a record that throws (its handler, or
 * a malformed body) is answered as a batch item failure (`{ batchItemFailures: [{ itemIdentifier }] }`),
 * the others succeed. A malformed body is reported too, not dropped: SQS redelivers it up to the
 * queue's maxReceiveCount and then moves it to the dead-letter queue, where it can be read.
 */
export function sqsWorker<T>(worker: SqsWorker<T>): (event: SQSEvent) => Promise<SQSBatchResponse> {
  const one = async (record: SQSRecord): Promise<void> => {
    const message = parseBody(worker, record);
    try {
      await worker.handle(message, record);
    } catch (err) {
      log.error(worker.failure, { message_id: record.messageId, ...errorFields(err) });
      throw err;
    }
  };
  return (event) =>
    invocation({ dimensions: { worker: worker.name } }, () =>
      // A processor per invocation: it holds the batch it is working on, and the local queues run a
      // worker for several messages at once in one process.
      processPartialResponse(
        event,
        (record: SQSRecord) => withCorrelationId(record.messageId, () => one(record)),
        new BatchProcessor(EventType.SQS),
        {
          processInParallel: worker.inParallel,
          // A batch whose every message failed is answered like any other (every id listed), not thrown.
          throwOnFullBatchFailure: false,
        },
      ),
    );
}

function parseBody<T>(worker: SqsWorker<T>, record: SQSRecord): T {
  let json: unknown;
  try {
    json = JSON.parse(record.body);
  } catch {
    return malformed(worker.name, record, [{ path: '', message: 'not JSON' }]);
  }
  const parsed = worker.schema().safeParse(json);
  if (!parsed.success)
    return malformed(
      worker.name,
      record,
      parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    );
  return parsed.data;
}

/** Logs a malformed body (where and why, never the body: mail carries sign-in links) and fails its record. */
function malformed(worker: string, record: SQSRecord, issues: { path: string; message: string }[]): never {
  log.error('message malformed; reported as failed, for the dead-letter queue', {
    worker,
    message_id: record.messageId,
    receive_count: Number(record.attributes?.ApproximateReceiveCount) || undefined,
    body_bytes: Buffer.byteLength(record.body ?? ''),
    issues,
  });
  throw new MalformedMessage(
    `${worker} message ${record.messageId} is malformed: ${issues.map((i) => `${i.path || '(body)'}: ${i.message}`).join('; ')}`,
  );
}
