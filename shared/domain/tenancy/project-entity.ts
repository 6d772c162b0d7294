import * as z from 'zod';
import { defineEntity } from '#db/entity';

/**
 * The project entity (see shared/db/entity.ts for the pattern): what a project item stores. A leaf
 * (zod and the entity helper only), so access.ts and projects.ts both read it without importing each
 * other. Only `toProjectOut` decides what a client sees.
 */
const count = () => z.number().int().default(0);

export const projectEntity = defineEntity('project', () =>
  z.object({
    id: z.string(),
    identifier: z.string(),
    name: z.string(),
    cost_calc_enabled: z.boolean().default(false),
    /** The account whose plan governs this project's limits (its creating owner). Internal. */
    owner_id: z.string(),
    /** Mirrors its SSO connection's `required`, written in the connection's transaction. */
    sso_required: z.boolean().optional(),
    created_at: z.string(),
    updated_at: z.string(),
    deleted_at: z.string().nullable().default(null),
    archived_at: z.string().nullish(),
    /** Quota counters, each changed in the same transaction as what it counts. */
    env_count: count(),
    service_count: count(),
    project_user_count: count(),
    custom_role_count: count(),
    /** Quota add-ons bought for the project raise its service limit (SPEC "Limits" 3). */
    service_quota_addon: z.number().nullish(),
    /** The sort key of its latest audit entry (shared/audit.ts). Internal. */
    audit_head: z.string().nullish(),
  }),
);
export type Project = z.infer<typeof projectEntity.schema>;
