import { enqueue } from './queue.ts';
import { config } from './config.ts';
import { errorFields, log } from './log.ts';
import type { AppContext } from './context.ts';
import { keys } from '#db/keys';
import { queryAll, queryPages } from '#db/query';
import { updateItem } from '#db/items';
import { IF_EXISTS, setExpression } from '#db/steps';
import type { EventMessage, EventOutboxItem } from './events.ts';
import type { QueuedMail } from '#mail/send';
import type { OutboxQueue } from './outbox-item.ts';

/**
 * Moving the outbox to the queues (shared/outbox-item.ts): the cloud's table-stream reader, the local
 * runtime's stand-in for it, and the resend sweep. Kept apart from what writes outbox items (which
 * every writing function bundles) so only these carry, and are granted, sending to the events and
 * mail queues. Nothing here logs what an item carries (mail text holds sign-in links): only its id.
 */

/** A mail's outbox item. */
export interface MailOutboxItem {
  PK: string;
  SK: string;
  type: 'outbox';
  queue: 'mail';
  mail: QueuedMail;
}
export type OutboxItem = EventOutboxItem | MailOutboxItem;

export const isOutboxItem = (item: Record<string, unknown> | undefined): item is Record<string, unknown> & OutboxItem =>
  !!item && item.PK === keys.outboxPK && item.type === 'outbox';

const isMail = (item: OutboxItem): item is MailOutboxItem => item.queue === 'mail';

/** The events queue's message of an event's outbox item. */
export const messageOf = (item: EventOutboxItem): EventMessage => ({ ...item.scope, event: item.event });

/** What a log line may say of an item: its queue and id, never its contents. */
const idOf = (item: OutboxItem): { queue: OutboxQueue; outbox_id: string } =>
  isMail(item) ? { queue: 'mail', outbox_id: item.mail.id } : { queue: 'events', outbox_id: item.event.id };

/** Sends an outbox item to its queue. */
async function handOver(item: OutboxItem): Promise<void> {
  if (isMail(item)) await enqueue('mail', item.mail);
  else await enqueue('events', messageOf(item));
}

/** Test hook: a step of forwarding that fails (a crash between the write and the publish). */
let forwardFault: (() => void) | undefined;
export function injectForwardFault(f: (() => void) | undefined) {
  forwardFault = f;
}

let forwarding: Promise<number> = Promise.resolve(0);
/** What this process's reader has handed over (`<table>#<sort key>`), as a stream's position: each item once; the resend sweep does the rest. */
const forwarded = new Set<string>();

/**
 * The local runtime's stand-in for the table stream: reads the outbox partition oldest first and
 * hands each item it has not handed over yet to its queue; an item stays until its consumer removes
 * it. A failed send stops the read (order kept) and is tried again at the next one, so a queue outage
 * delays what waits, and a crash anywhere leaves the item for the next read (delivery is at least
 * once; consumers are idempotent). Runs are serialized. Answers how many it handed over.
 */
export function forwardOutbox(): Promise<number> {
  forwarding = forwarding.catch(() => 0).then(forwardOnce);
  return forwarding;
}

async function forwardOnce(): Promise<number> {
  const table = config().TABLE_NAME;
  const items = await queryAll<OutboxItem>({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': keys.outboxPK },
    ConsistentRead: true,
  });
  // Items their consumers removed are forgotten (the set holds only what is still in the table).
  const present = new Set(items.map((i) => `${table}#${i.SK}`));
  for (const k of forwarded) if (k.startsWith(`${table}#`) && !present.has(k)) forwarded.delete(k);
  let n = 0;
  for (const item of items) {
    const at = `${table}#${item.SK}`;
    if (forwarded.has(at)) continue;
    try {
      forwardFault?.();
      await handOver(item);
    } catch (err) {
      log.error('outbox item not forwarded; read again at the next poll', { ...idOf(item), ...errorFields(err) });
      return n;
    }
    forwarded.add(at);
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
 * The cloud's outbox reader (DynamoDB Streams → the events and mail queues): each inserted outbox item
 * is handed to its queue; other changes are ignored (the event source's filter already drops them).
 * Answers the sequence numbers that failed (the stream retries from the first, in order; once it gives
 * up, the item is still in the table for the resend sweep).
 */
export async function forwardStreamChanges(changes: StreamChange[]): Promise<string[]> {
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i];
    if (c.eventName !== 'INSERT' || !isOutboxItem(c.newImage)) continue;
    try {
      await handOver(c.newImage);
    } catch (err) {
      log.error('outbox item not forwarded; the stream retries', { ...idOf(c.newImage), ...errorFields(err) });
      return [c.sequenceNumber];
    }
  }
  return [];
}

/** At most this many items are handed over again per sweep (the next sweep, a minute later, takes the rest). */
const RESEND_PER_SWEEP = 100;

/**
 * The resend sweep (the webhook retry schedule runs it every minute; a timer locally; a call with a
 * moved clock in tests): every outbox item written more than OUTBOX_RESEND_AFTER_SECONDS ago, and not
 * handed over again within that time, is handed to its queue again, oldest first, and stamped
 * `resent_at` (a change the stream ignores). Such an item was never handed over (a queue outage longer
 * than the stream's retries) or its message failed every receive (the dead-letter queue): its consumer
 * removes it once done, so only those stay. Its consumers are idempotent (a delivery per event and
 * webhook, a mail's claim), so one handed over twice does nothing twice. A failed send ends the sweep
 * (the queue is down: the next one tries again). Cost: one Query of what is overdue, nothing else.
 */
export async function resendStaleOutbox(ctx: AppContext): Promise<{ resent: number; failed: number }> {
  const now = ctx.clock.now();
  const cutoff = new Date(now.getTime() - ctx.config.OUTBOX_RESEND_AFTER_SECONDS * 1000).toISOString();
  let resent = 0;
  const pages = queryPages<OutboxItem & { resent_at?: string }>({
    KeyConditionExpression: 'PK = :pk AND SK < :cutoff',
    // Items without `queue` (written before mail and events stayed until consumed) were handed over by the stream and never removed: left to their TTL.
    FilterExpression: 'attribute_exists(#queue) AND (attribute_not_exists(resent_at) OR resent_at < :cutoff)',
    ExpressionAttributeNames: { '#queue': 'queue' },
    ExpressionAttributeValues: { ':pk': keys.outboxPK, ':cutoff': cutoff },
    ConsistentRead: true,
  });
  for await (const page of pages) {
    for (const item of page) {
      try {
        await handOver(item);
      } catch (err) {
        log.error('outbox item not resent; the next sweep tries again', { ...idOf(item), ...errorFields(err) });
        return { resent, failed: 1 };
      }
      resent++;
      // Only while it is there: its consumer may have removed it meanwhile (an update would write it back).
      await updateItem(
        { PK: item.PK, SK: item.SK },
        { ...setExpression({ resent_at: now.toISOString() }), ...IF_EXISTS },
      ).catch(() => undefined);
      if (resent >= RESEND_PER_SWEEP) return { resent, failed: 0 };
    }
  }
  if (resent) log.info('outbox items resent', { resent });
  return { resent, failed: 0 };
}
