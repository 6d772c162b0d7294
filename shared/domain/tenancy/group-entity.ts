import * as z from 'zod';
import { defineEntity } from '#db/entity';

/** The group and subgroup entities (see shared/db/entity.ts): what their items store. `toGroupOut`/`toSubgroupOut` decide what a client sees. */
const description = () => z.string().nullable().default(null);

export const groupEntity = defineEntity('group', () =>
  z.object({
    id: z.string(),
    project_id: z.string(),
    environment_id: z.string(),
    name: z.string(),
    description: description(),
    /** Live subgroups; lets deletion prove it cascaded to every one of them. Internal. */
    subgroup_count: z.number().int().default(0),
    /** Moved on by every subgroup created under it, so that its delete misses none (db/refs.ts). */
    refs_version: z.number().int().nullish(),
    created_at: z.string(),
    updated_at: z.string(),
    deleted_at: z.string().nullable().default(null),
    archived_at: z.string().nullish(),
    /** The sort key of its latest audit entry (shared/audit.ts). Internal. */
    audit_head: z.string().nullish(),
  }),
);
export type Group = z.infer<typeof groupEntity.schema>;

export const subgroupEntity = defineEntity('subgroup', () =>
  z.object({
    id: z.string(),
    project_id: z.string(),
    environment_id: z.string(),
    group_id: z.string(),
    name: z.string(),
    description: description(),
    created_at: z.string(),
    updated_at: z.string(),
    deleted_at: z.string().nullable().default(null),
    archived_at: z.string().nullish(),
    audit_head: z.string().nullish(),
  }),
);
export type Subgroup = z.infer<typeof subgroupEntity.schema>;
