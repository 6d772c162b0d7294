import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { ENV_ROLES } from '#auth/permissions';
import { defineEntity } from '#db/entity';

/** A project's single sign-on connection as stored (`keys.ssoConnection`; see shared/db/entity.ts). */
export const ssoConnectionEntity = defineEntity('sso_connection', () =>
  z.object({
    project_id: z.string(),
    issuer: z.string(),
    client_id: z.string(),
    /** Sealed with the secret box (KMS in the cloud), bound to the project: never returned, never logged. */
    client_secret_sealed: z.string(),
    /** Each verified once its TXT challenge was found (kept across PUTs that keep the domain). */
    domains: z
      .array(
        z.object({
          domain: z.string(),
          verified: z.boolean(),
          txt_value: z.string(),
          verified_at: z.string().nullable(),
        }),
      )
      .default([]),
    required: z.boolean().default(false),
    jit_role: z
      .object({ environment_id: z.string(), role: z.enum(ENV_ROLES) })
      .nullable()
      .default(null),
    created_at: z.string(),
    updated_at: z.string(),
  }),
);
export type SsoConnection = z.infer<typeof ssoConnectionEntity.schema>;
export type SsoDomain = SsoConnection['domains'][number];

/** What the seal of a client secret is bound to. */
export const secretContext = (projectId: string) => ({ purpose: 'sso-client-secret', project_id: projectId });

export const txtName = (domain: string) => `_infracat-challenge.${domain}`;
export const newTxtValue = () => `infracat-verification=${randomBytes(18).toString('base64url')}`;

/** What GET answers (no secret). */
export function toConnectionOut(c: SsoConnection) {
  return {
    project_id: c.project_id,
    issuer: c.issuer,
    client_id: c.client_id,
    domains: c.domains.map(toDomainOut),
    required: c.required,
    jit_role: c.jit_role,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

export const toDomainOut = (d: SsoDomain) => ({
  domain: d.domain,
  verified: d.verified,
  txt_name: txtName(d.domain),
  txt_value: d.txt_value,
});

/** The domain of an e-mail address, lower-cased. */
export const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1).toLowerCase();
