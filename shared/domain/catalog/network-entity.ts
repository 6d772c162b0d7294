import * as z from 'zod';
import { defineEntity, defineView } from '#db/entity';
import { customValues } from './custom-values.ts';

/** The network entity (shared/db/entity.ts has the pattern): what a network item stores, and what a client sees of it (no `created_at`). */
export const networkEntity = defineEntity('network', () =>
  z.object({
    id: z.uuid(),
    project_id: z.uuid(),
    environment_id: z.uuid(),
    name: z.string(),
    cidr: z.string(),
    gateway: z.string().nullable().default(null),
    vlan_id: z.number().int().nullable().default(null),
    is_private: z.boolean().default(true),
    description: z.string().nullable().default(null),
    /** Custom field values by key (custom-fields/: checked against the project's definitions on every write). */
    custom_fields: customValues().default({}),
    created_at: z.string(),
    updated_at: z.string(),
    deleted_at: z.string().nullable().default(null),
    archived_at: z.string().nullish(),
    /** The sort key of its latest audit entry (shared/audit.ts). Internal. */
    audit_head: z.string().nullish(),
  }),
);
export type Network = z.infer<typeof networkEntity.schema>;

export const networkView = defineView(networkEntity, {
  id: true,
  project_id: true,
  environment_id: true,
  name: true,
  cidr: true,
  gateway: true,
  vlan_id: true,
  is_private: true,
  description: true,
  custom_fields: true,
  updated_at: true,
  deleted_at: true,
});
export type NetworkOut = z.infer<typeof networkView.schema>;
/** The response schema of a network (GET/POST/PATCH /networks, attachments). */
/** The response schema (built at first use: `responses` are read by the OpenAPI document only). */
export const networkOut = () => networkView.schema;
