import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { deliverEvent } from '#domain/webhooks';
import { appContext } from '#shared/context';
import type { EventMessage } from '#shared/events';
import { errorFields, log } from '#shared/log';

/**
 * Delivers domain events (from the outbox) to the webhooks that subscribe to them. Idempotent: a
 * delivery is created once per event and webhook, so a message handed over again sends nothing
 * twice; a message that fails (the table unreachable) is reported for SQS to retry.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      await deliverEvent(JSON.parse(record.body) as EventMessage, appContext());
    } catch (err) {
      log.error('event delivery failed', { message_id: record.messageId, ...errorFields(err) });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}
