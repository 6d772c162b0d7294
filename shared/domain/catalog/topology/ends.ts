import { keys } from '#db/keys';
import type { TransactStep } from '#db/transact';
import { notFound } from '#shared/errors';
import { stillLiveStep } from '#db/live';

/** What a connection end (or a blast-radius node) can be. */
export const ENTITY_TYPES = ['service', 'floor'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

/** SPEC's 404 details for services and floors (as on attachments). */
export const ENTITY_NOT_FOUND: Record<EntityType, string> = { service: 'Service not found', floor: 'ServiceFloor not found' };

export const entityKey = (type: EntityType, projectId: string, envId: string, id: string) =>
  type === 'service' ? keys.service(projectId, envId, id) : keys.floor(projectId, envId, id);

/**
 * Inside a write's transaction: the service or floor exists, is live, and is in this environment
 * (its key includes the environment, so an entity of another environment is simply not there).
 * Checked in the transaction, not read before it, so a concurrent delete cannot leave an edge to nothing.
 */
export function liveEntityCheck(type: EntityType, projectId: string, envId: string, id: string): TransactStep {
  return stillLiveStep(entityKey(type, projectId, envId, id), notFound(ENTITY_NOT_FOUND[type]));
}

/** One check per distinct entity: a transaction may touch an item only once. */
export function liveEntityChecks(projectId: string, envId: string, ends: { type: EntityType; id: string }[]): TransactStep[] {
  const distinct = new Map(ends.map((e) => [`${e.type}#${e.id}`, e]));
  return [...distinct.values()].map((e) => liveEntityCheck(e.type, projectId, envId, e.id));
}
