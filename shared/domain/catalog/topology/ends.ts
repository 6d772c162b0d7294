import { keys } from '#db/keys';
import type { TransactStep } from '#db/transact';
import { notFound } from '#shared/errors';
import { referenceStep } from '#db/refs';

/** What a connection end (or a blast-radius node) can be. */
export const ENTITY_TYPES = ['service', 'floor'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

/** SPEC's 404 details for services and floors (as on attachments). */
export const ENTITY_NOT_FOUND: Record<EntityType, string> = {
  service: 'Service not found',
  floor: 'ServiceFloor not found',
};

export const entityKey = (type: EntityType, projectId: string, envId: string, id: string) =>
  type === 'service' ? keys.service(projectId, envId, id) : keys.floor(projectId, envId, id);

/**
 * The ends of a new edge: each a live service or floor of this environment (its key includes the
 * environment), whose delete then misses no edge (a reference: db/refs.ts).
 */
export function edgeEnd(type: EntityType, projectId: string, envId: string, id: string): TransactStep {
  return referenceStep(entityKey(type, projectId, envId, id), notFound(ENTITY_NOT_FOUND[type]));
}

/** One step per distinct entity: a transaction may touch an item only once. */
export function edgeEnds(projectId: string, envId: string, ends: { type: EntityType; id: string }[]): TransactStep[] {
  const distinct = new Map(ends.map((e) => [`${e.type}#${e.id}`, e]));
  return [...distinct.values()].map((e) => edgeEnd(e.type, projectId, envId, e.id));
}
