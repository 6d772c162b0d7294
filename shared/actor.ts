/**
 * Who a request's caller is: the account and the session as stored, and the pair that `AppContext.actor` holds.
 * A leaf (it imports nothing), so that `shared/context.ts` names the caller without importing the
 * identity context, which owns these items and re-exports the types (`#domain/identity`).
 */

export type AccountType = 'customer' | 'project_user' | 'staff';

/** The account as stored. Only `toAccountOut` decides what a client sees. */
export interface Account {
  id: string;
  email: string;
  name: string | null;
  phone: string | null;
  is_superuser: boolean;
  is_staff: boolean;
  admin_role: string | null;
  preferred_language: string | null;
  navigation_mode: string | null;
  job_title: string | null;
  timezone: string | null;
  table_density: string | null;
  is_active: boolean;
  account_type: AccountType;
  last_login_at: string | null;
  token_version: number;
  password_hash: string;
  created_at: string;
  updated_at: string;
}

/** The staff test, decided once: staff and superusers reach the staff surfaces (`/admin/*`) and act for others. */
export const isStaff = (a: { is_staff?: boolean; is_superuser?: boolean }): boolean => Boolean(a.is_staff || a.is_superuser);

/** One signed-in device. Revoking a session deletes it; its refresh token and access tokens then stop working. */
export interface Session {
  id: string;
  user_id: string;
  refresh_hash: string;
  device: string;
  ip: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  /** The account's token version when the session began: bumping the version (password reset, block) ends it. */
  token_version?: number;
  /**
   * The last rotation, kept for the refresh grace window: the hash of the secret it replaced, when it
   * happened, and the secret it rotated to, sealed with the secret box (never in clear).
   */
  previous_hash?: string;
  rotated_at?: string;
  rotated_to_sealed?: string;
  /** Set when the session began with a single sign-on through this project's connection (issue 44: required SSO). */
  sso_project_id?: string;
}

/**
 * What an API key's access token carries to each request (issue 36), re-read from the key on every
 * request: its id, its scopes (`read`, `write`) and the projects it is limited to (null: every project).
 */
export interface KeyGrant {
  key_id: string;
  scopes: string[];
  project_ids: string[] | null;
}

/**
 * The signed-in caller: the account as re-read for this request, and what its token belongs to:
 * a session (a person signed in), or an API key (`key`, a machine; `session` is then null).
 */
export interface Actor {
  account: Account;
  session: Session | null;
  key: KeyGrant | null;
}
