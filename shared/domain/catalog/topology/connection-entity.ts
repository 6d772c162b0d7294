import * as z from 'zod';
import { lazySchema } from '#shared/lazy-schema';
import { defineEntity, defineView } from '#db/entity';
import { ENTITY_TYPES } from './ends.ts';

/**
 * The connection and chain entities (shared/db/entity.ts has the pattern): what each item stores,
 * and what a client sees of a connection.
 */

export const DIRECTIONS = ['none', 'a_to_b', 'b_to_a', 'both'] as const;
export type Direction = (typeof DIRECTIONS)[number];
export const GROUP_KINDS = ['chain', 'hub'] as const;
export type GroupKind = (typeof GROUP_KINDS)[number];
/** A connection's label: trimmed, at most 200 characters; null clears it. */
export const connectionName = lazySchema(() => z.string().trim().min(1).max(200).nullish());

/** Field names are a contract: the services group deletes a service's connections, found by their ends' listings (edgeRemovalSteps). */
export const connectionEntity = defineEntity('connection', () =>
  z.object({
    id: z.uuid(),
    project_id: z.uuid(),
    environment_id: z.uuid(),
    a_type: z.enum(ENTITY_TYPES),
    a_id: z.uuid(),
    b_type: z.enum(ENTITY_TYPES),
    b_id: z.uuid(),
    direction: z.enum(DIRECTIONS).default('none'),
    chain_id: z.uuid().nullable().default(null),
    name: z.string().nullable().default(null),
    group_kind: z.enum(GROUP_KINDS).nullable().default(null),
    created_at: z.string(),
    updated_at: z.string(),
    deleted_at: z.string().nullable().default(null),
    /** Internal: the item's index in its batch, so a chain lists in the order it was given (same created_at). */
    position: z.number().int().optional(),
    /** The sort key of its latest audit entry (shared/audit.ts). Internal. */
    audit_head: z.string().nullish(),
  }),
);
export type Connection = z.infer<typeof connectionEntity.schema>;

export const connectionView = defineView(connectionEntity, {
  id: true,
  project_id: true,
  environment_id: true,
  a_type: true,
  a_id: true,
  b_type: true,
  b_id: true,
  direction: true,
  chain_id: true,
  name: true,
  group_kind: true,
  created_at: true,
  updated_at: true,
  deleted_at: true,
});
/** The response schema of a connection (every /service-connections route). */
/** The response schema (built at first use: `responses` are read by the OpenAPI document only). */
export const connectionOut = () => connectionView.schema;

/**
 * A chain or hub: born from a batch, joined by single creates that name its chain_id. Internal
 * (not an API resource, so no client shape). `connection_count` (live members) bounds chain-wide
 * transactions; every write that adds or removes a member moves it in the same transaction (in
 * connections/, and in the catalog's cascade when a service or floor is deleted: `edgeRemovalSteps`).
 */
export const chainEntity = defineEntity('connection_chain', () =>
  z.object({
    id: z.uuid(),
    project_id: z.uuid(),
    environment_id: z.uuid(),
    group_kind: z.enum(GROUP_KINDS),
    connection_count: z.number().int(),
    /** Moved on by every member joining, so that a chain-wide write misses none (db/refs.ts). Internal. */
    refs_version: z.number().int().nullish(),
    created_at: z.string(),
    updated_at: z.string(),
    deleted_at: z.string().nullable().default(null),
    /** The sort key of its latest audit entry (shared/audit.ts). Internal. */
    audit_head: z.string().nullish(),
  }),
);
export type Chain = z.infer<typeof chainEntity.schema>;
