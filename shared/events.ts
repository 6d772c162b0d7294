import * as z from 'zod';
import { lazySchema } from './lazy-schema.ts';
import type { AppContext } from './context.ts';
import type { TransactStep } from '#db/transact';
import { outboxStep, settleOutbox } from './outbox-item.ts';

export const EVENT_TYPES = [
  'service.created',
  'service.updated',
  'service.deleted',
  'floor.created',
  'alert.triggered',
  'alert.resolved',
  'user.invited',
  'subscription.changed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** SPEC's webhook payload shape. */
const domainEventSchema = () =>
  z.object({
    id: z.string().min(1),
    type: z.enum(EVENT_TYPES),
    timestamp: z.string().min(1),
    data: z.record(z.string(), z.unknown()),
  });
export type DomainEvent = z.infer<ReturnType<typeof domainEventSchema>>;

/** Whose webhooks receive the event: one project's, or (subscription.changed) those of every project the account owns. */
export type EventScope = { project_id: string } | { account_id: string };

/**
 * What the events queue carries (produced from the outbox item, `messageOf` in outbox.ts; parsed once
 * by the events worker): the scope rides along outside SPEC's payload so delivery can find the webhooks.
 */
export const eventMessageSchema = lazySchema(() => {
  const event = domainEventSchema();
  return z.union([
    z.object({ project_id: z.string().min(1), event }),
    z.object({ account_id: z.string().min(1), event }),
  ]);
});
export type EventMessage = z.infer<ReturnType<typeof eventMessageSchema>>;

/** Outbox items live a week: the stream forwards them at once and their consumer removes them; the TTL only cleans up. */
const OUTBOX_TTL_SECONDS = 7 * 24 * 3600;

/**
 * The outbox write of a domain event, a step of the transaction that makes the change it describes:
 * the event exists exactly when the change committed. The table stream (the local runtime's
 * `forwardOutbox`) moves it to the events queue; nothing is published after the write. The events
 * worker removes it once the event's deliveries exist (`settleEvent`).
 */
export function eventStep(
  type: EventType,
  scope: EventScope,
  data: Record<string, unknown>,
  ctx: AppContext,
): TransactStep {
  const now = ctx.clock.now();
  const event: DomainEvent = { id: ctx.ids.newId(), type, timestamp: now.toISOString(), data };
  return outboxStep(now, event.id, 'events', { scope, event }, OUTBOX_TTL_SECONDS);
}

/** The events worker is done with an event: its outbox item goes (written under the event's timestamp and id). */
export const settleEvent = (event: DomainEvent) => settleOutbox(event.timestamp, event.id);

/** An event of one project. */
export const projectEventStep = (type: EventType, projectId: string, data: Record<string, unknown>, ctx: AppContext) =>
  eventStep(type, { project_id: projectId }, data, ctx);
/** An event about an account (subscription.changed). */
export const accountEventStep = (type: EventType, accountId: string, data: Record<string, unknown>, ctx: AppContext) =>
  eventStep(type, { account_id: accountId }, data, ctx);

/** An event's outbox item (items written before the outbox kept them until delivery lack `queue`). */
export interface EventOutboxItem {
  PK: string;
  SK: string;
  type: 'outbox';
  queue?: 'events';
  scope: EventScope;
  event: DomainEvent;
}
