import * as z from 'zod';
import { lazySchema } from '#shared/lazy-schema';
import { defineEntity, defineView } from '#db/entity';
import { customValues } from './custom-values.ts';

/** The service floor entity (see entity.ts for the pattern): what a floor item stores, and what a client sees of it. */

export const FLOOR_TYPES = ['vm', 'container', 'baremetal', 'other'] as const;
export const floorType = lazySchema(() => z.enum(FLOOR_TYPES));
export type FloorType = z.infer<ReturnType<typeof floorType>>;

const text = () => z.string().nullable().default(null);
const int = () => z.number().int().nullable().default(null);

export const floorEntity = defineEntity('floor', () =>
  z.object({
    id: z.uuid(),
    project_id: z.uuid(),
    environment_id: z.uuid(),
    /** Stored as `floor_type`: `type` on items is the item kind by convention; answered as `type`. */
    floor_type: floorType(),
    hostname: text(),
    provider: text(),
    provider_region: text(),
    provider_zone: text(),
    provider_instance_id: text(),
    ip_address: text(),
    ip_addresses: z.array(z.string()).default([]),
    cpu: int(),
    memory_mb: int(),
    storage_gb: int(),
    instances: int(),
    tags: z.array(z.string()).default([]),
    /** The attached networks (see attachments.ts). */
    network_ids: z.array(z.uuid()).default([]),
    /** Discovery: the cloud account that found this floor (null: made by hand, never touched by discovery). */
    cloud_account_id: z.uuid().nullable().default(null),
    /** Discovery: when the floor's instance was last listed, and since when a complete scan no longer lists it. */
    last_seen_at: text(),
    missing_since: text(),
    /** Custom field values by key (custom-fields/: checked against the project's definitions on every write). */
    custom_fields: customValues().default({}),
    created_at: z.string(),
    updated_at: z.string(),
    deleted_at: z.string().nullable().default(null),
    archived_at: z.string().nullish(),
    /** The sort key of its latest audit entry (shared/audit.ts). Internal. */
    /** Moved on by every edge added to it, so that its delete misses none (db/refs.ts). Internal. */
    refs_version: z.number().int().nullish(),
    audit_head: z.string().nullish(),
  }),
);
export type Floor = z.infer<typeof floorEntity.schema>;

export const floorView = defineView(floorEntity, {
  id: true,
  project_id: true,
  environment_id: true,
  type: 'floor_type',
  hostname: true,
  provider: true,
  provider_region: true,
  provider_zone: true,
  provider_instance_id: true,
  ip_address: true,
  ip_addresses: true,
  cpu: true,
  memory_mb: true,
  storage_gb: true,
  instances: true,
  tags: true,
  custom_fields: true,
  cloud_account_id: true,
  last_seen_at: true,
  missing_since: true,
  updated_at: true,
  deleted_at: true,
});
export type FloorOut = z.infer<typeof floorView.schema>;
