import * as z from 'zod';
import { defineEntity } from '#db/entity';
import { ENV_ROLES } from '#auth/permissions';

/**
 * The invitation entity (see shared/db/entity.ts): the invitation as stored under its project. Only
 * `toInviteOut` decides what a client sees (never the token hash).
 */
const text = () => z.string().nullable().default(null);

export const invitationEntity = defineEntity('invite', () =>
  z.object({
    id: z.string(),
    /** The sort key of its latest audit entry (shared/audit.ts). Internal. */
    audit_head: z.string().nullish(),
    project_id: z.string(),
    /** Lower-cased, as account addresses are. */
    invited_email: z.string(),
    invited_first_name: text(),
    invited_last_name: text(),
    /** As given at creation; null means "the default at acceptance" (viewer). */
    role: z.enum(ENV_ROLES).nullable().default(null),
    invited_by_user_id: z.string(),
    environment_id: text(),
    group_id: text(),
    subgroup_id: text(),
    accepted: z.boolean().default(false),
    accepted_at: text(),
    accepted_by_user_id: text(),
    created_at: z.string(),
    updated_at: z.string(),
    expires_at: z.string(),
    /** SHA-256 of the current link's token; a resend replaces it, so the previous link stops working. */
    token_hash: z.string(),
    /**
     * When the owner revoked it (null or absent: not revoked). A revocation also sets `expires_at` to
     * now (what clients see), but acceptance checks this stored state, never a clock comparison alone:
     * a revocation that commits first wins whatever the accepting request's clock said. A resend clears it.
     */
    revoked_at: z.string().nullish(),
  }),
);
export type Invitation = z.infer<typeof invitationEntity.schema>;
