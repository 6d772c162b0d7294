import { deliverEvent } from '#domain/webhooks';
import { appContext } from '#shared/context';
import { eventMessageSchema, settleEvent } from '#shared/events';
import { sqsWorker } from '../batch.ts';

/**
 * Delivers domain events (from the outbox) to the webhooks that subscribe to them. Idempotent: a
 * delivery is created once per event and webhook, so a message handed over again sends nothing
 * twice; a message that fails (the table unreachable, or a malformed body) is reported for SQS to retry.
 * Once its deliveries exist, the event's outbox item goes (one still there later is handed over again).
 * Records in parallel: a batch waits for its slowest endpoint (15 s), not for the sum of them.
 */
export const handler = sqsWorker({
  name: 'events',
  schema: eventMessageSchema,
  inParallel: true,
  failure: 'event delivery failed',
  async handle(message) {
    await deliverEvent(message, appContext());
    await settleEvent(message.event);
  },
});
