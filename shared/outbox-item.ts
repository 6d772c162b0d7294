import { keys } from '#db/keys';
import { deleteItem } from '#db/items';
import { putNewStep } from '#db/steps';
import type { TransactStep } from '#db/transact';
import { errorFields, log } from './log.ts';

/**
 * The outbox: what a change asks to be sent later, domain events and mail, is an item of the
 * change's own transaction in one time-ordered partition (`keys.outbox`). The table stream (locally,
 * the outbox reader, shared/outbox.ts) hands each to its queue; the consumer removes it once it is done
 * with it (`settleOutbox`); one still there long after its write is handed over again by the resend
 * sweep (a queue outage outlasted the stream's retries, or its message was dead-lettered). So a queue
 * outage or a dead letter delays what was asked, never loses it. Kept apart from the reader, which
 * alone carries (and is granted) sending to the queues.
 */
export type OutboxQueue = 'events' | 'mail';

/** The outbox item of one message for `queue`, written at `at`; it expires after `ttlSeconds` (TTL). */
export function outboxItem(
  at: Date,
  id: string,
  queue: OutboxQueue,
  body: Record<string, unknown>,
  ttlSeconds: number,
): Record<string, unknown> {
  return {
    ...keys.outbox(at.toISOString(), id),
    type: 'outbox',
    queue,
    ...body,
    expires_at_epoch: Math.floor(at.getTime() / 1000) + ttlSeconds,
  };
}

/** The outbox write of one message for `queue`, a step of the change's transaction. */
export const outboxStep = (
  at: Date,
  id: string,
  queue: OutboxQueue,
  body: Record<string, unknown>,
  ttlSeconds: number,
): TransactStep => putNewStep(outboxItem(at, id, queue, body, ttlSeconds));

/**
 * The consumer is done with an outbox item (`at` and `id` as it was written): it goes. A failure is
 * logged, never raised: the item stays, and the resend sweep hands it over again later, which the
 * consumer answers as done (its work is idempotent) before removing it.
 */
export async function settleOutbox(at: string, id: string): Promise<void> {
  try {
    await deleteItem(keys.outbox(at, id));
  } catch (err) {
    log.warn('outbox item not removed; the resend sweep hands it over again', { outbox_id: id, ...errorFields(err) });
  }
}
