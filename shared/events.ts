import type { AppContext } from './context';
import { enqueue } from './queue';
import { errorFields, log } from './log';

export type EventType =
  | 'service.created' | 'service.updated' | 'service.deleted' | 'floor.created'
  | 'alert.triggered' | 'alert.resolved' | 'user.invited' | 'subscription.changed';

/** SPEC's webhook payload shape. `project_id` (or `account_id`) rides along outside the payload so delivery can find the webhooks. */
export interface DomainEvent {
  id: string;
  type: EventType;
  timestamp: string;
  data: Record<string, unknown>;
}

/**
 * Publishes a domain event to the events queue, after the write it describes has committed.
 * A failure to enqueue is logged, not surfaced: the write stands.
 */
export function publishEvent(type: EventType, projectId: string, data: Record<string, unknown>, ctx: AppContext): Promise<DomainEvent> {
  return publish(type, { project_id: projectId }, data, ctx);
}

/** An event about an account rather than one project (subscription.changed): delivered to the webhooks of every project the account owns. */
export function publishAccountEvent(type: EventType, accountId: string, data: Record<string, unknown>, ctx: AppContext): Promise<DomainEvent> {
  return publish(type, { account_id: accountId }, data, ctx);
}

async function publish(type: EventType, scope: { project_id: string } | { account_id: string }, data: Record<string, unknown>, ctx: AppContext): Promise<DomainEvent> {
  const event: DomainEvent = { id: ctx.ids.newId(), type, timestamp: ctx.clock.now().toISOString(), data };
  try {
    await enqueue('events', { ...scope, event });
  } catch (err) {
    log.error('event not published', { event_id: event.id, type, ...errorFields(err) });
  }
  return event;
}
