import { z } from 'zod';
import { defineEntity, type EntityItem } from '#db/entity';

/**
 * The network entity: the one definition of a network item (shared/db/entity.ts has the pattern).
 * Its type, a new network's defaults, decoding on read (older items get the defaults), the fields a
 * client sees (no `created_at`) and the routes' response schema all come from this schema.
 */
export const networkEntity = defineEntity({
  type: 'network',
  schema: z.object({
    id: z.uuid(),
    project_id: z.uuid(),
    environment_id: z.uuid(),
    name: z.string(),
    cidr: z.string(),
    gateway: z.string().nullable(),
    vlan_id: z.number().int().nullable(),
    is_private: z.boolean(),
    description: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    deleted_at: z.string().nullable(),
    archived_at: z.string().nullish(),
  }),
  defaults: { gateway: null, vlan_id: null, is_private: true, description: null, deleted_at: null },
  out: ['id', 'project_id', 'environment_id', 'name', 'cidr', 'gateway', 'vlan_id', 'is_private', 'description', 'updated_at', 'deleted_at'],
});

export type Network = EntityItem<typeof networkEntity>;
export type NetworkOut = ReturnType<typeof networkEntity.out>;
/** The response schema of a network (GET/POST/PATCH /networks, attachments). */
export const networkOut = networkEntity.outSchema;
