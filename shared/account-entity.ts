import * as z from 'zod';
import { defineEntity } from '#db/entity';

/**
 * The account and session entities (see shared/db/entity.ts): what their items store. Outside the
 * identity context, which owns them, because authentication (`shared/auth/caller.ts`) reads both on
 * every request and imports no context; `shared/actor.ts` names their types for the caller.
 */
const text = () => z.string().nullable().default(null);

export const ACCOUNT_TYPES = ['customer', 'project_user', 'staff'] as const;

/** The account as stored. Only `toAccountOut` decides what a client sees. */
export const accountEntity = defineEntity('account', () =>
  z.object({
    id: z.string(),
    email: z.string(),
    name: text(),
    phone: text(),
    is_superuser: z.boolean().default(false),
    is_staff: z.boolean().default(false),
    admin_role: text(),
    preferred_language: text(),
    navigation_mode: text(),
    job_title: text(),
    timezone: text(),
    table_density: text(),
    /** Missing reads as blocked, as it did before there was an entity (absent was falsy). */
    is_active: z.boolean().default(false),
    account_type: z.enum(ACCOUNT_TYPES),
    last_login_at: text(),
    /** Bumped by a password reset or a block: tokens and sessions of an older version stop working. */
    token_version: z.number().int().default(0),
    password_hash: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    /** Quota and limit counters, each moved in the transaction that changes what it counts (absent: none yet). */
    owned_project_count: z.number().int().optional(),
    api_key_count: z.number().int().optional(),
    totp_device_count: z.number().int().optional(),
  }),
);
export type Account = z.infer<typeof accountEntity.schema>;

/** One signed-in device. Revoking a session deletes it; its refresh token and access tokens then stop working. */
export const sessionEntity = defineEntity('session', () =>
  z.object({
    id: z.string(),
    user_id: z.string(),
    refresh_hash: z.string(),
    device: z.string(),
    ip: z.string(),
    created_at: z.string(),
    last_seen_at: z.string(),
    expires_at: z.string(),
    /** The account's token version when the session began: bumping the version (password reset, block) ends it. */
    token_version: z.number().int().optional(),
    /**
     * The last rotation, kept for the refresh grace window: the hash of the secret it replaced, when it
     * happened, and the secret it rotated to, sealed with the secret box (never in clear).
     */
    previous_hash: z.string().optional(),
    rotated_at: z.string().optional(),
    rotated_to_sealed: z.string().optional(),
    /** Set when the session began with a single sign-on through this project's connection (what required SSO accepts). */
    sso_project_id: z.string().optional(),
  }),
);
export type Session = z.infer<typeof sessionEntity.schema>;
