import * as z from 'zod';
import { defineEntity } from '#db/entity';

/** A sign-in's state as stored (see shared/db/entity.ts): what the callback needs to finish what `start` began. */
export const ssoStateEntity = defineEntity('sso_state', () =>
  z.object({
    project_id: z.string(),
    code_verifier: z.string(),
    nonce: z.string(),
    return_to: z.string(),
    /** Set by POST /auth/sso/link: the callback links the identity to this account, and to no other. */
    link_user_id: z.string().nullable().default(null),
    /** The linking account's e-mail: only an identity with this address is linked (a link started by one person cannot be finished by another's browser). */
    link_email: z.string().nullish(),
    /** SHA-256 of the browser binding set as a cookie by /auth/sso/start: the callback must come from the browser that started (no login CSRF). */
    binding_hash: z.string().nullish(),
    created_at: z.string(),
  }),
);
export type SsoState = z.infer<typeof ssoStateEntity.schema>;

/** What a login code stands for: an account to sign in (user, project, issuer), or the refusal to answer (so the dashboard can show it). */
export const loginCodeEntity = defineEntity('sso_login_code', () =>
  z.object({
    user_id: z.string().optional(),
    sso_project_id: z.string().optional(),
    issuer: z.string().optional(),
    refusal: z.object({ kind: z.enum(['forbidden', 'conflict', 'unauthenticated']), detail: z.string() }).optional(),
    created_at: z.string(),
  }),
);

/** An identity linked to an account, as its account's partition lists it. */
export const linkEntity = defineEntity('sso_link', () =>
  z.object({
    issuer: z.string(),
    sub: z.string(),
    user_id: z.string(),
    email: z.string(),
    project_id: z.string(),
    linked_at: z.string(),
  }),
);
export type LinkItem = z.infer<typeof linkEntity.schema>;

/** An item that names an account: an identity (issuer, sub) it signs into, or the claim of its e-mail address. */
export const accountRefEntity = defineEntity('account_ref', () => z.object({ user_id: z.string() }));
