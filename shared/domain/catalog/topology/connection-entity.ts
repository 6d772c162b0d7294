import { z } from 'zod';
import { defineEntity, type EntityItem } from '#db/entity';
import { ENTITY_TYPES } from './ends';

/**
 * The connection and chain entities: the one definition of each item (shared/db/entity.ts has the
 * pattern). Types, a new item's defaults, decoding on read (older items get the defaults), the
 * fields a client sees and the routes' response schema all come from these schemas.
 */

export const DIRECTIONS = ['none', 'a_to_b', 'b_to_a', 'both'] as const;
export type Direction = (typeof DIRECTIONS)[number];
export const GROUP_KINDS = ['chain', 'hub'] as const;
export type GroupKind = (typeof GROUP_KINDS)[number];

/** Field names are a contract: the services group deletes connections by `a_id`/`b_id` (edgeRemovalSteps). */
export const connectionEntity = defineEntity({
  type: 'connection',
  schema: z.object({
    id: z.uuid(),
    project_id: z.uuid(),
    environment_id: z.uuid(),
    a_type: z.enum(ENTITY_TYPES),
    a_id: z.uuid(),
    b_type: z.enum(ENTITY_TYPES),
    b_id: z.uuid(),
    direction: z.enum(DIRECTIONS),
    chain_id: z.uuid().nullable(),
    name: z.string().nullable(),
    group_kind: z.enum(GROUP_KINDS).nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    deleted_at: z.string().nullable(),
    /** Internal: the item's index in its batch, so a chain lists in the order it was given (same created_at). */
    position: z.number().int().optional(),
  }),
  defaults: { direction: 'none', chain_id: null, name: null, group_kind: null, deleted_at: null },
  out: ['id', 'project_id', 'environment_id', 'a_type', 'a_id', 'b_type', 'b_id', 'direction', 'chain_id', 'name', 'group_kind', 'created_at', 'updated_at', 'deleted_at'],
});

export type Connection = EntityItem<typeof connectionEntity>;
export type ConnectionOut = ReturnType<typeof connectionEntity.out>;
/** The response schema of a connection (every /service-connections route). */
export const connectionOut = connectionEntity.outSchema;

/**
 * A chain or hub: born from a batch, joined by single creates that name its chain_id. Internal
 * (not an API resource, so no client shape). `connection_count` (live members) bounds chain-wide
 * transactions; every write that adds or removes a member moves it in the same transaction (in
 * connections.ts, and in the catalog's cascade when a service or floor is deleted: `edgeRemovalSteps`).
 */
export const chainEntity = defineEntity({
  type: 'connection_chain',
  schema: z.object({
    id: z.uuid(),
    project_id: z.uuid(),
    environment_id: z.uuid(),
    group_kind: z.enum(GROUP_KINDS),
    connection_count: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
    deleted_at: z.string().nullable(),
  }),
  defaults: { deleted_at: null },
});

export type Chain = EntityItem<typeof chainEntity>;
