import { enqueue } from './queue';
import { errorFields, log } from './log';
import { keys } from '#db/keys';
import { queryAll } from '#db/query';
import { deleteItem } from '#db/items';
import type { EventMessage, OutboxItem } from './events';

/**
 * Moving the outbox to delivery: the cloud's table-stream reader and the local runtime's stand-in.
 * Kept apart from `events.ts` (which every writing function bundles for its event steps) so only the
 * readers carry, and are granted, sending to the events queue.
 */

export const isOutboxItem = (item: Record<string, unknown> | undefined): item is Record<string, unknown> & OutboxItem =>
  !!item && item.PK === keys.outboxPK && item.type === 'outbox';

/** The queue message of an outbox item. */
export const messageOf = (item: OutboxItem): EventMessage => ({ ...item.scope, event: item.event });

/** Test hook: a step of forwarding that fails (a crash between the write and the publish). */
let forwardFault: (() => void) | undefined;
export function injectForwardFault(f: (() => void) | undefined) {
  forwardFault = f;
}

let forwarding: Promise<number> = Promise.resolve(0);

/**
 * The local runtime's stand-in for the table stream: reads the outbox partition oldest first,
 * enqueues each event and only then deletes its item, so a crash anywhere leaves the event for the
 * next read (delivery is at least once; receivers dedupe on `webhook-id`). Runs are serialized.
 */
export function forwardOutbox(): Promise<number> {
  forwarding = forwarding.catch(() => 0).then(forwardOnce);
  return forwarding;
}

async function forwardOnce(): Promise<number> {
  const items = await queryAll<OutboxItem>({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': keys.outboxPK },
    ConsistentRead: true,
  });
  let n = 0;
  for (const item of items) {
    try {
      forwardFault?.();
      await enqueue('events', messageOf(item));
    } catch (err) {
      log.error('outbox event not forwarded; read again at the next poll', { event_id: item.event.id, ...errorFields(err) });
      return n;
    }
    await deleteItem({ PK: item.PK, SK: item.SK });
    n++;
  }
  return n;
}

/** One record of the table's stream, as much of it as the forwarder reads (the image already unmarshalled). */
export interface StreamChange {
  sequenceNumber: string;
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE' | undefined;
  newImage: Record<string, unknown> | undefined;
}

/**
 * The cloud's outbox reader (DynamoDB Streams → the events queue): each inserted outbox item is
 * enqueued; other changes are ignored (the event source's filter already drops them). Answers the
 * sequence numbers that failed (the stream retries from the first, in order).
 */
export async function forwardStreamChanges(changes: StreamChange[]): Promise<string[]> {
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i];
    if (c.eventName !== 'INSERT' || !isOutboxItem(c.newImage)) continue;
    try {
      await enqueue('events', messageOf(c.newImage));
    } catch (err) {
      log.error('outbox event not forwarded; the stream retries', { event_id: c.newImage.event.id, ...errorFields(err) });
      return [c.sequenceNumber];
    }
  }
  return [];
}
