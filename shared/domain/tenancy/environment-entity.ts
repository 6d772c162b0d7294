import * as z from 'zod';
import { defineEntity, defineView } from '#db/entity';

/** The environment entity (see shared/db/entity.ts for the pattern): what its item stores, and what a client sees of it. */
export const environmentEntity = defineEntity('environment', () =>
  z.object({
    id: z.uuid(),
    name: z.string(),
    project_id: z.uuid(),
    created_at: z.string(),
    updated_at: z.string(),
    deleted_at: z.string().nullable().default(null),
    archived_at: z.string().nullish(),
    /** Services in this environment (the per-environment service quota). */
    service_count: z.number().int().default(0),
    /** Moved on by every write of its connections, so a duplicate check that read them is refused when one came meanwhile (catalog/topology/connections/duplicates.ts). Internal. */
    connections_version: z.number().int().optional(),
    /** The sort key of its latest audit entry (shared/audit.ts). Internal. */
    audit_head: z.string().nullish(),
  }),
);
export type Environment = z.infer<typeof environmentEntity.schema>;

export const environmentView = defineView(environmentEntity, {
  id: true,
  name: true,
  project_id: true,
  updated_at: true,
  deleted_at: true,
});
export type EnvironmentOut = z.infer<typeof environmentView.schema>;
