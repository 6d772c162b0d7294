import * as z from 'zod';
import { defineEntity } from '#db/entity';
import { ENV_ROLES } from '#auth/permissions';

/** A user's role in one environment (see shared/db/entity.ts): what its item stores. `toEnvRoleOut` decides what a client sees. */
export const envRoleEntity = defineEntity('env_role', () =>
  z.object({
    id: z.string(),
    environment_id: z.string(),
    user_id: z.string(),
    role: z.enum(ENV_ROLES),
    /** The sort key of its latest audit entry (shared/audit.ts). Internal. */
    audit_head: z.string().nullish(),
  }),
);
export type EnvRoleAssignment = z.infer<typeof envRoleEntity.schema>;
