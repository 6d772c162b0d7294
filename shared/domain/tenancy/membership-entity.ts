import * as z from 'zod';
import { defineEntity } from '#db/entity';

/**
 * The member entity (see shared/db/entity.ts): one person's membership of a project, stored under the
 * project (`keys.member`); the user-side mirror (`keys.membership`) holds its role only.
 */
export const membershipEntity = defineEntity('member', () =>
  z.object({
    project_id: z.string(),
    user_id: z.string(),
    role: z.enum(['owner', 'member']),
    created_at: z.string(),
    /** Custom-role grants as `<roleId>#<environmentId or *>`, mirrored here so access needs no extra read. */
    custom_role_grants: z.set(z.string()).optional(),
    /** Moved on by every change of what the member holds (db/refs.ts). Internal. */
    refs_version: z.number().int().nullish(),
  }),
);
export type Membership = z.infer<typeof membershipEntity.schema>;

/** The user-side mirror of a membership (`keys.membership`, under the account): which projects a person is in, and as what. */
export const userMembershipEntity = defineEntity('membership', () =>
  z.object({
    project_id: z.string(),
    role: z.enum(['owner', 'member']),
  }),
);
