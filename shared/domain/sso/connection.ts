import { randomBytes } from 'node:crypto';
import type { EnvRole } from '#auth/permissions';

/** A domain of a connection: verified once its TXT challenge was found (kept across PUTs that keep the domain). */
export interface SsoDomain {
  domain: string;
  verified: boolean;
  txt_value: string;
  verified_at: string | null;
}

export interface JitRole {
  environment_id: string;
  role: EnvRole;
}

/** A project's single sign-on connection as stored (`keys.ssoConnection`). */
export interface SsoConnection {
  project_id: string;
  issuer: string;
  client_id: string;
  /** Sealed with the secret box (KMS in the cloud), bound to the project: never returned, never logged. */
  client_secret_sealed: string;
  domains: SsoDomain[];
  required: boolean;
  jit_role: JitRole | null;
  created_at: string;
  updated_at: string;
}

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

export const decodeConnection = (item: Record<string, unknown>): SsoConnection => {
  const { PK: _pk, SK: _sk, type: _t, ...rest } = item;
  return rest as unknown as SsoConnection;
};
