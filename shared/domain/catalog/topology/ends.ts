import { keys } from '#db/keys';
import type { Key } from '#db/batch-get';
import type { TransactStep } from '#db/transact';
import { notFound, type DomainError } from '#shared/errors';
import { whileLiveStep, type Condition } from '#db/live';
import { counterStep } from '#db/steps';

/** What a connection end (or a blast-radius node) can be. */
export const ENTITY_TYPES = ['service', 'floor'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

/** SPEC's 404 details for services and floors (as on attachments). */
export const ENTITY_NOT_FOUND: Record<EntityType, string> = { service: 'Service not found', floor: 'ServiceFloor not found' };

export const entityKey = (type: EntityType, projectId: string, envId: string, id: string) =>
  type === 'service' ? keys.service(projectId, envId, id) : keys.floor(projectId, envId, id);

/**
 * What points at a service or a server (its connections and links, and a server's hosted
 * services) is removed with it, by a delete that reads them first. So that nothing can be added
 * between that read and the delete's commit (issue 32: a connection that outlived its service), an
 * edge's creating transaction moves its end's `edges_version` on (on condition that the end is
 * live, else `failWith`), and the delete's own write holds only while the version is the one it
 * read (`edgesAsRead`): a later edge fails the delete, which reads its edges again.
 */
export function edgeEndStep(key: Key, failWith: DomainError): TransactStep {
  return whileLiveStep(counterStep(key, { edges_version: 1 }), failWith);
}

/** Attempts of an end's delete: edges may keep arriving at a busy one, each sending it back to read them again. */
export const END_DELETE_ATTEMPTS = 8;

/** The condition, for an end's delete, that no edge was added to it since it was read. */
export const edgesAsRead = (end: { edges_version?: number | null }): Condition =>
  end.edges_version
    ? { expression: '#edges = :edges', names: { '#edges': 'edges_version' }, values: { ':edges': end.edges_version } }
    : { expression: 'attribute_not_exists(#edges)', names: { '#edges': 'edges_version' }, values: {} };

/** The ends of a new edge: each a live service or floor of this environment (its key includes the environment). */
export function edgeEnd(type: EntityType, projectId: string, envId: string, id: string): TransactStep {
  return edgeEndStep(entityKey(type, projectId, envId, id), notFound(ENTITY_NOT_FOUND[type]));
}

/** One step per distinct entity: a transaction may touch an item only once. */
export function edgeEnds(projectId: string, envId: string, ends: { type: EntityType; id: string }[]): TransactStep[] {
  const distinct = new Map(ends.map((e) => [`${e.type}#${e.id}`, e]));
  return [...distinct.values()].map((e) => edgeEnd(e.type, projectId, envId, e.id));
}
