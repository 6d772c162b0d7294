import type { AppContext } from './context';
import { enqueue } from './queue';
import { errorFields, log } from './log';
import { keys } from '#db/keys';
import { putNewStep } from '#db/steps';
import { queryAll } from '#db/query';
import { deleteItem } from '#db/items';
import type { TransactStep } from '#db/transact';

export type EventType =
  | 'service.created' | 'service.updated' | 'service.deleted' | 'floor.created'
  | 'alert.triggered' | 'alert.resolved' | 'user.invited' | 'subscription.changed';

export const EVENT_TYPES: readonly EventType[] = [
  'service.created', 'service.updated', 'service.deleted', 'floor.created', 'alert.triggered', 'alert.resolved', 'user.invited', 'subscription.changed',
];

/** SPEC's webhook payload shape. */
export interface DomainEvent {
  id: string;
  type: EventType;
  timestamp: string;
  data: Record<string, unknown>;
}

/** Whose webhooks receive the event: one project's, or (subscription.changed) those of every project the account owns. */
export type EventScope = { project_id: string } | { account_id: string };

/** What the events queue carries: the scope rides along outside SPEC's payload so delivery can find the webhooks. */
export type EventMessage = EventScope & { event: DomainEvent };

/** Outbox items live a week: the stream forwards them at once; the TTL only cleans up. */
const OUTBOX_TTL_SECONDS = 7 * 24 * 3600;

/**
 * The outbox write of a domain event, a step of the transaction that makes the change it describes:
 * the event exists exactly when the change committed. The table stream (the local runtime's
 * `forwardOutbox`) moves it to the events queue; nothing is published after the write.
 */
export function eventStep(type: EventType, scope: EventScope, data: Record<string, unknown>, ctx: AppContext): TransactStep {
  const now = ctx.clock.now();
  const event: DomainEvent = { id: ctx.ids.newId(), type, timestamp: now.toISOString(), data };
  return putNewStep({
    ...keys.outbox(event.timestamp, event.id),
    type: 'outbox',
    scope,
    event,
    expires_at_epoch: Math.floor(Date.now() / 1000) + OUTBOX_TTL_SECONDS,
  });
}

/** An event of one project. */
export const projectEventStep = (type: EventType, projectId: string, data: Record<string, unknown>, ctx: AppContext) => eventStep(type, { project_id: projectId }, data, ctx);
/** An event about an account (subscription.changed). */
export const accountEventStep = (type: EventType, accountId: string, data: Record<string, unknown>, ctx: AppContext) => eventStep(type, { account_id: accountId }, data, ctx);

interface OutboxItem {
  PK: string;
  SK: string;
  type: 'outbox';
  scope: EventScope;
  event: DomainEvent;
}

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
