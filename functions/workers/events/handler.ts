import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { deliverEvent } from '#domain/webhooks';
import { appContext } from '#shared/context';
import type { EventMessage } from '#shared/events';
import { errorFields, log } from '#shared/log';
import { invocation, withCorrelationId } from '#shared/observe';

/**
 * Delivers domain events (from the outbox) to the webhooks that subscribe to them. Idempotent: a
 * delivery is created once per event and webhook, so a message handed over again sends nothing
 * twice; a message that fails (the table unreachable) is reported for SQS to retry.
 */
export const handler = (event: SQSEvent): Promise<SQSBatchResponse> => invocation({ dimensions: { worker: 'events' } }, () => deliverBatch(event));

async function deliverBatch(event: SQSEvent): Promise<SQSBatchResponse> {
  // Records in parallel: a batch waits for its slowest endpoint (15 s), not for the sum of them; each one's
  // log lines carry its SQS message id.
  const results = await Promise.allSettled(
    event.Records.map((record) => withCorrelationId(record.messageId, () => deliverEvent(JSON.parse(record.body) as EventMessage, appContext()))),
  );
  const batchItemFailures = event.Records.flatMap((record, i) => {
    const r = results[i];
    if (r.status === 'fulfilled') return [];
    log.error('event delivery failed', { message_id: record.messageId, correlation_id: record.messageId, ...errorFields(r.reason) });
    return [{ itemIdentifier: record.messageId }];
  });
  return { batchItemFailures };
}
