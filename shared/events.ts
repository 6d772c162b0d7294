import type { AppContext } from './context';
import { enqueue } from './queue';
import { errorFields, log } from './log';

export type EventType =
  | 'service.created' | 'service.updated' | 'service.deleted' | 'floor.created'
  | 'alert.triggered' | 'alert.resolved' | 'user.invited' | 'subscription.changed';

/** SPEC's webhook payload shape. `project_id` rides along outside the payload so delivery can find the project's webhooks. */
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
export async function publishEvent(type: EventType, projectId: string, data: Record<string, unknown>, ctx: AppContext): Promise<DomainEvent> {
  const event: DomainEvent = { id: ctx.ids.newId(), type, timestamp: ctx.clock.now().toISOString(), data };
  try {
    await enqueue('events', { project_id: projectId, event });
  } catch (err) {
    log.error('event not published', { event_id: event.id, type, ...errorFields(err) });
  }
  return event;
}
