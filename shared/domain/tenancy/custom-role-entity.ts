import * as z from 'zod';
import { defineEntity } from '#db/entity';
import { ENV_DOCUMENT_RIGHTS, PERMISSIONS } from '#auth/permissions';

/** The custom role and its assignment entities (see shared/db/entity.ts): what their items store. */
export const customRoleEntity = defineEntity('custom_role', () =>
  z.object({
    id: z.string(),
    project_id: z.string(),
    name: z.string(),
    description: z.string().nullable().default(null),
    permissions: z.array(z.enum([...PERMISSIONS, ...ENV_DOCUMENT_RIGHTS])).default([]),
    created_at: z.string(),
    updated_at: z.string(),
    deleted_at: z.string().nullable().default(null),
    archived_at: z.string().nullish(),
    /** The sort key of its latest audit entry (shared/audit.ts). Internal. */
    audit_head: z.string().nullish(),
  }),
);
export type CustomRole = z.infer<typeof customRoleEntity.schema>;

/** One per (role, user): a role applies to the whole project (`environment_id` null) or to one environment. */
export const customRoleAssignmentEntity = defineEntity('custom_role_assignment', () =>
  z.object({
    id: z.string(),
    role_id: z.string(),
    project_id: z.string(),
    user_id: z.string(),
    environment_id: z.string().nullable().default(null),
    created_at: z.string(),
    updated_at: z.string(),
    deleted_at: z.string().nullable().default(null),
    archived_at: z.string().nullish(),
    audit_head: z.string().nullish(),
  }),
);
export type CustomRoleAssignment = z.infer<typeof customRoleAssignmentEntity.schema>;
